#!/bin/sh
# tests/e2e/tune/test_tvmc_tune.sh - `tvmc tune` end to end on a small
# model (zoo:mlp, a fast measuring target): the table, the JSON-lines log,
# --resume (prior records count, nothing re-measured), the re-measurement
# of each task's default and best logged, --tasks by output
# shape (and the layouts of its nodes only), a malformed log line
# reported with its line number and skipped,
# tvmc compile --tuning-log (tuned workloads applied, a missing one
# reported, one its template rejects replaced by the default), the xgb
# tuner when XGBoost is built in, a log with records kept unless
# --resume, a target without its device refused before the log is
# touched, and crashing /
# hanging candidates (fault injection) recorded without killing the
# tuner; layout knobs (convolution channel blocks) measured, logged and
# applied.
set -u
b=${TVM_BUILDDIR:?run through make check}
tvmc="$b/tvmc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
die() { echo "FAIL: $*"; fail=1; }
has() { printf '%s\n' "$1" | grep -F -q -- "$2" || die "missing '$2' in: $1"; }
cat > fast.yaml <<'Y'
name: llvm-cpu-fast
plugin: llvm-cpu
keys: [cpu]
attrs: {num_threads: 1}
tuning: {number: 1, repeat: 2, min_repeat_ms: 0, timeout_s: 2}
Y

out=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 3 --log a.jsonl \
      --tuner random --seed 5 2>&1) || die "tune: $out"
printf '%s\n' "$out"
has "$out" "3 tasks (3 selected)"
has "$out" "[random] task 3/3"
# invalid candidates are rejected before building, and how many the
# random picks hit depends on the ISA (AVX2's 16 registers refuse tile_m
# 8 and above with two-vector panels, AVX-512's 32 do not): any count
printf '%s\n' "$out" |
  grep -E -q "errors: invalid [0-9]+ lower 0 build 0 run 0 crash 0 timeout 0 wrong 0" ||
  die "errors other than invalid candidates: $out"
has "$out" "tuning curves: a.jsonl.svg"
has "$out" "(re-measured: "
[ -s a.jsonl.svg ] || die "no SVG"
grep -q '<polyline' a.jsonl.svg || die "SVG without curves"
n=$(wc -l < a.jsonl)
[ "$n" -ge 4 ] || die "log has $n lines"
grep -q '"version":1,"workload":"llvm-cpu.dense-' a.jsonl || die "log lines: $(head -1 a.jsonl)"
grep -q '"error":"ok"' a.jsonl || die "no ok record"
# each task's re-measurement of its default and best is logged (two
# "confirmed" records; one where the best is the default), and the
# compile goes by those
nre=$(printf '%s\n' "$out" | grep -c '(re-measured: [0-9.]* -> ')
nsame=$(printf '%s\n' "$out" | grep -c 'the best is the default)')
[ $((nre + nsame)) -eq 3 ] || die "re-measured $nre + $nsame of 3 tasks: $out"
[ "$(grep -c '"confirmed":1' a.jsonl)" -eq $((2 * nre + nsame)) ] ||
  die "re-measurement records: $(grep -c '"confirmed":1' a.jsonl) for $nre + $nsame tasks"
# --tasks matches a kernel's output shape as the table prints it too
out2=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 1 --log s.jsonl \
       --tuner random --tasks 1x128 2>&1) || die "tune --tasks: $out2"
has "$out2" "3 tasks (1 selected)"
has "$out2" "Gemm+Relu"

# --resume: every prior record counts; with the same budget nothing new
out=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 3 --log a.jsonl \
      --tuner random --resume --confirm 0 2>&1) || die "resume: $out"
printf '%s\n' "$out"
has "$out" "resuming from a.jsonl: $n records (0 malformed lines skipped)"
has "$out" "resumed)"
[ "$(wc -l < a.jsonl)" -eq "$n" ] || die "resume re-measured: $(wc -l < a.jsonl) lines"

# a malformed line is reported with its line number and skipped
printf '{"version":1,"workload": oops\n' >> a.jsonl
out=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 3 --log a.jsonl \
      --tuner random --resume --confirm 0 2>&1) || die "resume with a bad line: $out"
has "$out" "a.jsonl:$((n + 1)): malformed line skipped (JSON 1:"
has "$out" "(1 malformed lines skipped)"

# tvmc compile --tuning-log: tuned workloads applied, no warning
out=$("$tvmc" compile zoo:mlp --target fast.yaml --tuning-log a.jsonl -o m.tvmpkg 2>&1) \
  || die "compile --tuning-log: $out"
case "$out" in *"no record"*) die "tuned workload reported missing: $out";; esac
# a log of another model: every workload missing, said so, defaults used
printf '' > empty.jsonl
out=$("$tvmc" compile zoo:mlp --target fast.yaml --tuning-log empty.jsonl -o m.tvmpkg 2>&1) \
  || die "compile with an empty log: $out"
has "$out" "no record of workload llvm-cpu.dense-"
has "$out" "using the template default"
# tvmc run compiles a model with the log too; a package refuses it
out=$("$tvmc" run zoo:mlp --target fast.yaml --tuning-log empty.jsonl --repeat 1 2>&1) \
  || die "run --tuning-log: $out"
has "$out" "no record of workload llvm-cpu.dense-"
out=$("$tvmc" run m.tvmpkg --tuning-log a.jsonl 2>&1) && die "run of a package took --tuning-log"
has "$out" "pass --tuning-log to tvmc compile instead"

# the model-guided tuner
if "$tvmc" tune zoo:mlp --target fast.yaml --trials 3 --log x.jsonl \
     --tuner xgb --confirm 0 2>err.txt >out.txt; then
  has "$(cat out.txt)" "[xgb] task 3/3"
  # a task whose space is one point (the Winograd input transform has no
  # knob) after the model has data: the annealing had no knob to move
  # and divided by zero (SIGFPE, seen on AMD Zen 3)
  cat > wino.yaml <<'Y'
name: llvm-cpu-wino
plugin: llvm-cpu
keys: [cpu]
attrs: {num_threads: 1, winograd_min_tiles: 1, winograd_tile: 4}
tuning: {number: 1, repeat: 2, min_repeat_ms: 0, timeout_s: 2}
Y
  out=$("$tvmc" tune zoo:dqn --target wino.yaml --trials 3 --log w.jsonl \
        --tuner xgb --layout-trials 0 --confirm 0 2>&1) || die "xgb on dqn: $out"
  has "$out" "Conv2D_winograd_input_NCHWc"
  has "$out" "[xgb] task 6/6"
else
  has "$(cat err.txt)" "libxgboost-dev"
fi

# crashing and hanging candidates are recorded, the tuner goes on
out=$(TVM_TUNE_INJECT=crash "$tvmc" tune zoo:mlp --target fast.yaml --trials 2 \
      --log c.jsonl --tuner random --confirm 0 2>&1) || die "tuner died on crashes: $out"
printf '%s\n' "$out" | grep -q "run 0 crash [1-9][0-9]* timeout 0" || die "crashes not counted: $out"
grep -q '"error":"crash"' c.jsonl || die "no crash record"
out=$(TVM_TUNE_INJECT=hang "$tvmc" tune zoo:mlp --target fast.yaml --trials 1 \
      --log h.jsonl --tuner random --max-tasks 1 --confirm 0 2>&1) || die "tuner died on a hang: $out"
has "$out" "timeout 1"
grep -q '"error":"timeout"' h.jsonl || die "no timeout record"

# layouts (zoo:dqn, three convolutions): every layout measured once and
# logged ("template":"layout", the default marked), the tasks tuned in
# the layouts chosen; tvmc compile --tuning-log takes the same layouts;
# --resume measures no layout again; --layout-trials 0 keeps the defaults
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log l.jsonl \
      --tuner random --layout-trials 1 --confirm 0 2>&1) || die "tune layouts: $out"
printf '%s\n' "$out"
has "$out" "layouts: 3 nodes with layout knobs, up to 27 layouts each, measured in 1 pass(es)"
has "$out" "layout Conv 1x64x7x7"
# (the 3x3 stride-1 convolution has 9 block layouts, each direct, Winograd
# F(4x4) or F(2x2): its input transform is one more task where Winograd
# was the fastest)
printf '%s\n' "$out" | grep -Eq "^zoo:dqn on llvm-cpu-fast: (5 tasks \(5|6 tasks \(6) selected\)" \
  || die "task count after the layouts: $out"
# layouts measured: 8x8/4 conv 3 blocks x flat pixels on/off, 4x4/2 conv
# 9 x 2, the 3x3 one 9 x 3 algorithms (its default Winograd declares no
# flat_pixels knob): 6 + 18 + 27
[ "$(grep -c '"template":"layout"' l.jsonl)" -eq 51 ] || die "layout records: $(grep -c '"template":"layout"' l.jsonl)"
[ "$(grep -c '"default":1' l.jsonl)" -eq 3 ] || die "default layout records: $(grep -c '"default":1' l.jsonl)"
out=$("$tvmc" compile zoo:dqn --target fast.yaml --tuning-log l.jsonl -o d.tvmpkg 2>&1) \
  || die "compile with layout records: $out"
case "$out" in *"no record"*) die "a task of the chosen layouts has no record: $out";; esac
n=$(wc -l < l.jsonl)
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log l.jsonl \
      --tuner random --resume --confirm 0 2>&1) || die "resume layouts: $out"
case "$out" in *"layouts:"*) die "resume measured layouts again: $out";; esac
[ "$(wc -l < l.jsonl)" -eq "$n" ] || die "resume re-measured: $(wc -l < l.jsonl) lines"
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log l0.jsonl \
      --tuner random --layout-trials 0 --confirm 0 2>&1) || die "layout-trials 0: $out"
case "$out" in *"layouts:"*) die "--layout-trials 0 measured layouts: $out";; esac
grep -q '"template":"layout"' l0.jsonl && die "--layout-trials 0 logged layouts"
# a record whose configuration its template rejects (here every knob of
# the convolutions at its largest choice: register blocks far past the
# registers, as a log from another CPU may ask) is said and replaced by
# the default: the package is the one an empty log gives ($out, the run
# above, is read again below)
grep '"template":"llvm-cpu.conv2d_NCHWc"' l0.jsonl |
  perl -pe 's/\[(\d+),(\d+)\]/"[".($2-1).",$2]"/ge' > big.jsonl
[ -s big.jsonl ] || die "no convolution records in l0.jsonl"
rj=$("$tvmc" compile zoo:dqn --target fast.yaml --tuning-log big.jsonl -o big.tvmpkg 2>&1) \
  || die "compile with rejected records: $rj"
has "$rj" "rejects the tuning log's configuration"
has "$rj" "its default is used"
"$tvmc" compile zoo:dqn --target fast.yaml --tuning-log empty.jsonl -o dflt.tvmpkg \
  > /dev/null 2>&1 || die "compile zoo:dqn with an empty log"
cmp -s big.tvmpkg dflt.tvmpkg || die "rejected records did not give the default package"
# --tasks limits the layouts measured to the selected kernel's node (the
# 9x9 convolution's kernel, by its shape in the default layouts as the
# run above printed it: its channel block follows the vector width) or
# to a node whose layout label matches
k9=$(printf '%s\n' "$out" | grep -o ' 1x[0-9]*x9x9x[0-9]* ' | head -1 | tr -d ' ')
[ -n "$k9" ] || die "no 9x9 kernel in the table: $out"
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log lt.jsonl \
      --tuner random --layout-trials 1 --confirm 0 --tasks "$k9" 2>&1) \
  || die "tune --tasks with layouts: $out"
has "$out" "layouts: 1 nodes with layout knobs"
has "$out" "layout Conv 1x64x9x9"
case "$out" in *"layout Conv 1x32x20x20"*|*"layout Conv 1x64x7x7"*)
  die "--tasks measured other nodes' layouts: $out";; esac
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log lt2.jsonl \
      --tuner random --layout-trials 1 --confirm 0 --tasks 1x32x20x20 2>&1) \
  || die "tune --tasks by layout label: $out"
has "$out" "layouts: 1 nodes with layout knobs"
has "$out" "layout Conv 1x32x20x20"
out=$("$tvmc" tune zoo:dqn --target fast.yaml --trials 1 --log l9.jsonl --layout-trials 9 2>&1) \
  && die "--layout-trials 9 accepted"
has "$out" "bad value '9' for --layout-trials"

# a log with records is not truncated by a run without --resume
n=$(wc -l < a.jsonl)
out=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 1 --log a.jsonl \
      --tuner random 2>&1) && die "tune over a log with records succeeded: $out"
has "$out" "already holds records"
has "$out" "pass --resume"
[ "$(wc -l < a.jsonl)" -eq "$n" ] || die "the log lost records: $(wc -l < a.jsonl) of $n lines"

# a target this machine cannot run (mali-g76 without a GPU, cuda without
# a driver): refused before the log is opened, which keeps its records
un=$("$tvmc" targets 2>&1 | awk '/^targets/ { on = 1; next }
  on && /^      unavailable/ { print name; exit } on { name = $1 }')
if [ -n "$un" ]; then
  printf 'an earlier record\n' > keep.jsonl
  out=$("$tvmc" tune zoo:mlp --target "$un" --trials 2 --log keep.jsonl 2>&1) &&
    die "tune on unavailable $un succeeded: $out"
  has "$out" "cannot run on this machine"
  has "$out" "is left as it was"
  [ "$(cat keep.jsonl)" = "an earlier record" ] || die "the log of a refused tune changed"
  echo "tune on $un (unavailable here) refused, its log kept"
else
  echo "every target runs here: the refusal of an unavailable one not checked"
fi

# usage errors
"$tvmc" tune zoo:mlp --target fast.yaml --log y.jsonl >/dev/null 2>&1 && die "no --trials accepted"
out=$("$tvmc" tune zoo:mlp --target fast.yaml --trials 2 --log y.jsonl --tuner sa 2>&1) && die "bad tuner accepted"
has "$out" "unknown tuner 'sa'"
exit $fail
