#!/bin/sh
# tests/fuzz/test_signing.sh - signed packages end to end: tvmc keygen,
# tvmc compile --sign, tvmc run --trusted-keys (and $TVM_TRUSTED_KEYS)
# accepting the right signer and refusing unsigned packages, other
# signers, packages modified after signing (even with every checksum
# fixed up: tests/fuzz/crashes/package/code-bytes-flipped.tvmpkg is one
# whose kernel code bytes were flipped, which crashes when run) and
# malformed key files.  Skips (77) without libsodium.
set -u
s=${TVM_SRCDIR:?run through make check}
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
model="$s/tests/fuzz/small-relu-add.onnx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }

out=$("$tvmc" keygen -o k 2>&1)
case $out in
  *"without libsodium"*) echo "SKIP: built without libsodium"; exit 77 ;;
esac
[ -s k ] && [ -s k.pub ] || die "keygen wrote no keys: $out"
[ "$(stat -c %a k)" = 600 ] || die "secret key mode is $(stat -c %a k)"
"$tvmc" keygen -o k >/dev/null 2>&1 && die "keygen overwrote a key"
"$tvmc" keygen -o other >/dev/null || die "second keygen"

"$tvmc" compile "$model" -o signed.tvmpkg --sign k >/dev/null || die "compile --sign"
"$tvmc" compile "$model" -o plain.tvmpkg >/dev/null || die "compile"
"$tvmc" run signed.tvmpkg --trusted-keys k.pub --repeat 1 >/dev/null ||
  die "the right signer is refused"
cat other.pub k.pub > both.pub
"$tvmc" run signed.tvmpkg --trusted-keys both.pub --repeat 1 >/dev/null ||
  die "a key in a list of two is refused"
TVM_TRUSTED_KEYS=k.pub "$tvmc" run signed.tvmpkg --repeat 1 >/dev/null ||
  die "TVM_TRUSTED_KEYS: the right signer is refused"
# a signed package still loads without a policy (old readers skip kind 4)
"$tvmc" run signed.tvmpkg --repeat 1 >/dev/null || die "signed, no policy"

# refuse WHAT SUBSTRING CMD...: exit 1 and the message
refuse() {
  what=$1 want=$2
  shift 2
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  echo "$what: rc=$rc: $err"
  [ $rc -eq 1 ] || die "$what: exit status $rc (want 1)"
  printf '%s\n' "$err" | grep -F -q -- "$want" || die "$what: no '$want'"
}
refuse unsigned "is not signed" "$tvmc" run plain.tvmpkg --trusted-keys k.pub --repeat 1
refuse other-signer "which is not in the trusted keys" \
  "$tvmc" run signed.tvmpkg --trusted-keys other.pub --repeat 1
refuse env-unsigned "is not signed" env TVM_TRUSTED_KEYS=k.pub "$tvmc" run plain.tvmpkg --repeat 1
refuse code-bytes "is not signed" "$tvmc" run \
  "$s/tests/fuzz/crashes/package/code-bytes-flipped.tvmpkg" --trusted-keys k.pub --repeat 1
echo "not a key" > bad.pub
refuse bad-keys "bad.pub:1: not a public key line" \
  "$tvmc" run signed.tvmpkg --trusted-keys bad.pub --repeat 1
refuse model "is not a package" "$tvmc" run "$model" --trusted-keys k.pub --repeat 1
refuse bad-secret "is not a secret key file" \
  "$tvmc" compile "$model" -o x.tvmpkg --sign k.pub
[ -e x.tvmpkg ] && die "a failed --sign left an unsigned package"

# modified after signing: flip one byte of the parameters/module section
# and fix every checksum, as an attacker would (the last section is the
# signature; flip inside the first section, the plan)
cp signed.tvmpkg mod.tvmpkg
off=$(od -An -t u8 -j 40 -N 8 signed.tvmpkg | tr -d ' ')
printf 'Z' | dd of=mod.tvmpkg bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
"$b/tests/fuzz/pkg_refix" mod.tvmpkg || die "pkg_refix"
refuse modified "does not match the contents" \
  "$tvmc" run mod.tvmpkg --trusted-keys k.pub --repeat 1
exit $fail
