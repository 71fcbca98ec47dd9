#!/bin/sh
# tests/e2e/tvmc/test_tvmc_package.sh - `tvmc compile` and `tvmc run` end
# to end on llvm-cpu: compile zoo:mlp into a package, run it with --json
# (median_ms, outputs, profile), write outputs as .npy and feed one back
# as an input, check that damaged packages, foreign targets and bad
# inputs fail with a clean message and a non-zero exit, and that an
# output which is not a regular file is written, not replaced.
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }

out=$("$tvmc" compile zoo:mlp --target llvm-cpu -o x.tvmpkg 2>&1) || die "compile: $out"
printf '%s\n' "$out"
has "$out" "kernels"
has "$out" "peak activations"
has "$out" "x.tvmpkg"
# the compile line: the compile, then with the model read and the package
# written (the issue's "from ONNX to a runnable package"), never less
line=$(printf '%s\n' "$out" | grep '^compile ')
c=$(printf '%s\n' "$line" | sed -n 's/^compile *\([0-9.]*\) s (\([0-9.]*\) s with reading.*/\1 \2/p')
[ -n "$c" ] || die "compile line without both times: $line"
echo "$c" | awk '{ exit !($2 >= $1) }' || die "whole time below the compile's: $line"
[ -s x.tvmpkg ] || die "no package written"

json=$("$tvmc" run x.tvmpkg --json --repeat 3 --profile) || die "run --json: $json"
printf '%s\n' "$json"
has "$json" '"median_ms": '
has "$json" '"min_ms": '
has "$json" '"max_ms": '
has "$json" '"outputs": [{"name": "prob", "dtype": "float32", "shape": [1, 10]'
has "$json" '"profile": [{"step": 0'
has "$json" '"in_run_ms": '
# the table: each kernel repeated on its own and inside whole runs
out=$("$tvmc" run x.tvmpkg --repeat 3 --profile) || die "run --profile: $out"
has "$out" "in run ms"
printf '%s\n' "$out" | grep -Eq '^ +total +[0-9.]+ +100.0% +[0-9.]+$' || die "no in-run total: $out"
# one line, one object
[ "$(printf '%s\n' "$json" | wc -l)" -eq 1 ] || die "--json printed more than one line"
case "$json" in "{"*"}") ;; *) die "--json output is not an object";; esac

# the same numbers compiled on the fly and from the package
a=$(printf '%s\n' "$json" | sed 's/.*"first": \(\[[^]]*\]\).*/\1/')
j2=$("$tvmc" run zoo:mlp --json --repeat 1) || die "run zoo:mlp"
c=$(printf '%s\n' "$j2" | sed 's/.*"first": \(\[[^]]*\]\).*/\1/')
[ "$a" = "$c" ] || die "package and on-the-fly outputs differ: $a vs $c"

# outputs as .npy; an output of the wrong shape refused as an input
out=$("$tvmc" run x.tvmpkg --output-dir o --repeat 1) || die "run --output-dir: $out"
[ -s o/prob.npy ] || die "no o/prob.npy"
out=$("$tvmc" run x.tvmpkg --input x=o/prob.npy 2>&1) && die "wrong-shape input accepted"
has "$out" "shape [1, 10] given, [1, 64] expected"
out=$("$tvmc" run x.tvmpkg --input nosuch=o/prob.npy 2>&1) && die "unknown input accepted"
has "$out" "has no input 'nosuch'"
# an input file for a zoo model compiled on the fly (its shapes are
# static: the file's is checked when bound, not taken as an override)
{ printf '\223NUMPY\001\000\166\000'
  printf "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 64), }%57s\n" ""
  dd if=/dev/zero bs=256 count=1 2>/dev/null; } > z.npy
j1=$("$tvmc" run x.tvmpkg --input x=z.npy --json --repeat 1 2>&1) || die "package with z.npy: $j1"
j2=$("$tvmc" run zoo:mlp --input x=z.npy --json --repeat 1 2>&1) || die "zoo:mlp with z.npy: $j2"
za=$(printf '%s\n' "$j1" | sed 's/.*"first": \(\[[^]]*\]\).*/\1/')
zc=$(printf '%s\n' "$j2" | sed 's/.*"first": \(\[[^]]*\]\).*/\1/')
[ "$za" = "$zc" ] || die "zero input: package and on-the-fly outputs differ: $za vs $zc"
out=$("$tvmc" run zoo:mlp --input x=o/prob.npy 2>&1) && die "zoo: wrong-shape input accepted"
has "$out" "shape [1, 10] given, [1, 64] expected"

# a flipped byte in the middle of the package
cp x.tvmpkg bad.tvmpkg
size=$(wc -c < x.tvmpkg)
printf '\125' | dd of=bad.tvmpkg bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
cmp -s x.tvmpkg bad.tvmpkg && printf '\252' | dd of=bad.tvmpkg bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
out=$("$tvmc" run bad.tvmpkg 2>&1); rc=$?
[ $rc -ne 0 ] || die "damaged package ran"
[ $rc -lt 128 ] || die "damaged package crashed tvmc (exit $rc)"
has "$out" "package bad.tvmpkg is damaged"
# truncated
head -c $((size - 10)) x.tvmpkg > short.tvmpkg
out=$("$tvmc" run short.tvmpkg 2>&1); rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] || die "truncated package: exit $rc"
has "$out" "package short.tvmpkg is damaged or truncated"
# not a package at all
echo "hello" > junk.tvmpkg
out=$("$tvmc" run junk.tvmpkg 2>&1) && die "junk ran"
has "$out" "not a tvmc package"
# built for another target
out=$("$tvmc" run x.tvmpkg --target llvm-cpu-1thread 2>&1) && die "foreign target accepted"
has "$out" "recompile with tvmc compile --target llvm-cpu-1thread"
# a package of a target whose YAML file is not here runs on the
# attributes it records, and says so
mkdir mine
printf 'name: mine-2t\nplugin: llvm-cpu\nattrs: {num_threads: 2}\n' > mine/mine-2t.yaml
out=$(TVM_TARGET_PATH="$tmp/mine:${TVM_TARGET_PATH:-}" "$tvmc" compile zoo:mlp \
      --target mine-2t -o mine.tvmpkg 2>&1) || die "compile for mine-2t: $out"
out=$("$tvmc" run mine.tvmpkg --json --repeat 1 2>err.txt) || die "run mine.tvmpkg: $out $(cat err.txt)"
has "$(cat err.txt)" "no target file 'mine-2t' here; running on the attributes package mine.tvmpkg records"
has "$out" '"target": "mine-2t"'
m=$(printf '%s\n' "$out" | sed 's/.*"first": \(\[[^]]*\]\).*/\1/')
[ "$a" = "$m" ] || die "mine-2t's outputs differ from llvm-cpu's: $m vs $a"
out=$("$tvmc" run mine.tvmpkg --target mine-2t 2>&1) && die "--target mine-2t found"
has "$out" "target 'mine-2t' not found"
# an output that is not a regular file (here a FIFO; /dev/null alike) is
# written in place, never replaced by a renamed temporary file
mkfifo pipe.tvmpkg || die "mkfifo"
cat pipe.tvmpkg > piped.tvmpkg &
reader=$!
out=$("$tvmc" compile zoo:mlp --target llvm-cpu -o pipe.tvmpkg 2>&1) ||
  die "compile into a FIFO: $out"
if [ -p pipe.tvmpkg ]; then
  wait $reader
else # the reader would wait forever for a writer
  kill $reader 2>/dev/null
  die "the FIFO was replaced by a regular file"
fi
cmp -s piped.tvmpkg x.tvmpkg || die "the FIFO did not carry the package"
ls pipe.tvmpkg.tmp* >/dev/null 2>&1 && die "a temporary file was left"

exit $fail
