#!/bin/sh
# tests/abi/test_tvmc_targets.sh - `tvmc targets` shows every decision of
# discovery (loaded, skipped with the reason, refused for permissions)
# and every target file with its state, YAML errors with file:line:col.
set -u
b=${TVM_BUILDDIR:?run through make check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 755 "$tmp/plugins" "$tmp/targets"
cp "$b/tests/abi/plugins/.libs/negotiate.so" "$tmp/plugins/gw.so"
chmod 775 "$tmp/plugins/gw.so"
cat > "$tmp/targets/good.yaml" <<'YAML'
name: good
plugin: fake
attrs: {block: 4}
YAML
cat > "$tmp/targets/typo.yaml" <<'YAML'
name: typo
plugin: fake
attrs: {block: 4, num_thread: 2}
YAML
fail=0
out=$(TVM_PLUGIN_PATH="$b/tests/abi/plugins/.libs::$b/tests/abi/bad/.libs:$tmp/plugins" \
      TVM_TARGET_PATH="$tmp/targets" TVM_NO_INSTALLED=1 "$b/tvmc" targets) || {
  echo "tvmc targets failed"; fail=1; }
printf '%s\n' "$out"
expect() {
  if ! printf '%s\n' "$out" | grep -F -q -- "$1"; then
    echo "MISSING: $1"
    fail=1
  fi
}
expect "abi1         0.1      ABI 1  $b/tests/abi/plugins/.libs/abi1.so"
expect "negotiate    0.1      ABI 8"
expect "skipped: ABI negotiation failed: the plugin answered ABI 9, this host speaks 1 to 8"
expect "skipped: dlopen failed: libtvmabigone.so"
expect "skipped: no entry symbol tvm_plugin_query"
expect "skipped: refusing plugin $tmp/plugins/gw.so: file is group-writable; fix with chmod go-w $tmp/plugins/gw.so"
expect "good                 plugin fake         $tmp/targets/good.yaml"
expect "error: $tmp/targets/typo.yaml:3:19: unknown attribute 'num_thread' for plugin 'fake'; did you mean 'num_threads'?"
# probe failures: a plugin whose schema has defaults for everything is
# probed as such; a target file is probed with its attributes.
out=$(FAKE_UNAVAILABLE=1 TVM_PLUGIN_PATH="$b/tests/abi/plugins/.libs" \
      TVM_TARGET_PATH="$tmp/targets" TVM_NO_INSTALLED=1 "$b/tvmc" targets)
printf '%s\n' "$out"
expect "unavailable: fake device missing: unset FAKE_UNAVAILABLE - test plugin"
state=$(printf '%s\n' "$out" | grep -F -A1 -- "$tmp/targets/good.yaml" | tail -1)
case $state in
  *"unavailable: fake device missing: unset FAKE_UNAVAILABLE") ;;
  *) echo "target good: state '$state'"; fail=1 ;;
esac
ver=$("$b/tvmc" --version)
case $ver in
  *"plugin ABI 8 (accepts 1 to 8)"*) ;;
  *) echo "bad --version: $ver"; fail=1 ;;
esac
"$b/tvmc" no-such-command 2>/dev/null && { echo "unknown command accepted"; fail=1; }
exit $fail
