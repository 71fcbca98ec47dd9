#!/bin/sh
# tests/plugins/simt/test_simt_backend_ops.sh - every operator case of
# tvm-backend-ops on the simt thread target: the core's generic thread
# schedules, serialized on the CPU, against the naive references.
#
# known_failures.txt lists open defects (one case per line, with the
# reason): those cases must fail, and are reported; any other failure,
# or a listed case that passes, fails this test, so the list can neither
# hide a new bug nor outlive its fix.  On a host with AVX2 the Pow and
# Cast cases run once more on simt-avx2.yaml (AVX2 code, whatever the
# host's vector width), so a conversion that AVX2 and AVX-512 lower
# differently fails on either kind of machine.
set -u
b=${TVM_BUILDDIR:?run through make check}
s=${TVM_SRCDIR:?run through make check}
[ -x "$b/tvm-backend-ops" ] || { echo "tvm-backend-ops not built"; exit 77; }
[ -f "$b/tests/plugins/simt/.libs/tvm-simt.so" ] ||
  { echo "simt test plugin not built (no llvm-cpu)"; exit 77; }
out=$("$b/tvm-backend-ops" "$s/tests/plugins/simt/simt.yaml")
printf '%s\n' "$out"
known="$s/tests/plugins/simt/known_failures.txt"
bad=0
failed=$(printf '%s\n' "$out" | sed -n 's/^not ok [0-9]* - \(simt [^:]*\):.*/\1/p')
printf '%s\n' "$failed" | while IFS= read -r c; do
  [ -n "$c" ] || continue
  if grep -qxF "$c" "$known"; then echo "# KNOWN FAILURE: $c"
  else echo "# NEW FAILURE: $c"; fi
done
new=$(printf '%s\n' "$failed" | grep -v '^$' | grep -cvxF -f "$known")
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  printf '%s\n' "$failed" | grep -qxF "$line" ||
    { echo "listed as known but did not fail (remove it): $line"; bad=1; }
done < "$known"
[ "$new" -eq 0 ] || { echo "tvm-backend-ops on simt: $new new failure(s)"; bad=1; }
# the integer Pow and Cast cases again as AVX2 code (on an AVX-512 host
# too: out-of-range conversions once differed between the two lowerings)
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  o2=$("$b/tvm-backend-ops" -o Pow,Cast "$s/tests/plugins/simt/simt-avx2.yaml")
  printf '%s\n' "$o2"
  printf '%s\n' "$o2" | grep -q '^not ok' &&
    { echo "tvm-backend-ops on simt-avx2: failures"; bad=1; }
  printf '%s\n' "$o2" | grep -q '^ok .*simt-avx2 Pow ' ||
    { echo "simt-avx2: the Pow cases did not run"; bad=1; }
fi
ran=$(printf '%s\n' "$out" | grep -c "^ok ")
skipped=$(printf '%s\n' "$out" | grep -c "^ok .*# SKIP")
echo "simt: $ran cases passed or skipped, $skipped skipped"
[ $((ran - skipped)) -ge 100 ] || { echo "too few cases ran on simt"; bad=1; }
exit $bad
