#!/bin/sh
# tests/abi/test_quantize_request.sh - a target whose plugin asks (ABI 6
# quantize) for a quantization the compiler's pass does not do (int16
# activations) fails `tvmc compile` with an error that names the pass,
# the target, what it asked for and what the pass does.
set -u
b=${TVM_BUILDDIR:?run through make check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -m 755 "$tmp/targets"
cat > "$tmp/targets/q16.yaml" <<'YAML'
name: q16
plugin: quant16
attrs: {block: 4}
YAML
fail=0
out=$(TVM_PLUGIN_PATH="$b/tests/abi/plugins/.libs" TVM_TARGET_PATH="$tmp/targets" \
      TVM_NO_INSTALLED=1 "$b/tvmc" compile zoo:mlp --target q16 -o "$tmp/m.tvmpkg" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ]; then echo "compile succeeded"; fail=1; fi
for want in "graph pass quantize" "target 'q16' asks for activations 0:16" \
            "int8 activations and weights, int32 accumulation and power-of-two"; do
  if ! printf '%s\n' "$out" | grep -F -q -- "$want"; then
    echo "MISSING: $want"; fail=1
  fi
done
exit $fail
