#!/bin/sh
# bench/tune/whole_model.sh - whole-model tuning time against end-to-end
# latency: `tvmc tune MODEL` grown budget by budget with --resume (the
# log of each step is the next one's start, so the wall time adds up),
# a package compiled with the log after each step, then every package
# (untuned first) run in interleaved rounds so a noisy phase of the
# machine hits all of them.  Prints, per budget, the cumulative tuning
# wall time and the median latency over the rounds' medians.
# PREFIX is an installed tree (make install DESTDIR=/tmp/inst gives
# /tmp/inst/usr/local), so rebuilding the work tree cannot disturb a run.
#   usage: bench/tune/whole_model.sh PREFIX OUT_DIR [MODEL] [TARGET]
#            [BUDGETS] [ROUNDS] [TUNER]
#   e.g.   bench/tune/whole_model.sh /tmp/inst/usr/local /tmp/wm \
#            zoo:resnet18 llvm-cpu "4 8 16 32" 5 xgb
set -eu
p=$1 out=$2 model=${3:-zoo:resnet18} target=${4:-llvm-cpu}
budgets=${5:-4 8 16 32} rounds=${6:-5} tuner=${7:-xgb}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$p/lib" TVM_PLUGIN_PATH="$p/lib/tvm/plugins" \
       TVM_NO_INSTALLED=1 TVM_TARGET_PATH="$here/../../targets"
tvmc=$p/bin/tvmc
log=$out/tune.jsonl
rm -f "$log"
now() { date +%s.%N; }
"$tvmc" compile "$model" --target "$target" -o "$out/b0.tvmpkg" > /dev/null
total=0
echo "budget 0: untuned" > "$out/steps.txt"
for b in $budgets; do
  t0=$(now)
  resume=; [ -s "$log" ] && resume=--resume
  "$tvmc" tune "$model" --target "$target" --trials "$b" --tuner "$tuner" \
    --seed 1 --log "$log" $resume --confirm 0 > "$out/tune$b.txt" 2>&1
  t1=$(now)
  total=$(awk "BEGIN { printf \"%.1f\", $total + $t1 - $t0 }")
  "$tvmc" compile "$model" --target "$target" --tuning-log "$log" \
    -o "$out/b$b.tvmpkg" > "$out/compile$b.txt" 2>&1
  echo "budget $b: cumulative tuning wall time $total s" >> "$out/steps.txt"
done
for r in $(seq 1 "$rounds"); do
  for b in 0 $budgets; do
    ms=$("$tvmc" run "$out/b$b.tvmpkg" --repeat 20 2>&1 |
         sed -n 's/.*latency *median \([0-9.]*\) ms.*/\1/p')
    echo "$b $ms" >> "$out/runs.txt"
  done
done
python3 - "$out" <<'PY'
import statistics, sys
out = sys.argv[1]
steps = [l.strip() for l in open(out + "/steps.txt")]
runs = {}
for l in open(out + "/runs.txt"):
    b, ms = l.split()
    runs.setdefault(b, []).append(float(ms))
for s in steps:
    b = s.split()[1].rstrip(":")
    v = runs.get(b, [])
    print("%s; latency median of %d round medians %.4g ms (%s)" % (
        s, len(v), statistics.median(v) if v else float("nan"),
        " ".join("%.4g" % x for x in v)))
PY
