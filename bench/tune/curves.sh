#!/bin/sh
# bench/tune/curves.sh - the tuning-curve experiment: xgb vs random vs ga on
# the first K distinct conv2d workloads of zoo:resnet18, the same space and
# harness, SEEDS seeds each; then curves.py reports, per layer, the median
# number of measurements each tuner needs to reach 95% of the best
# configuration any tuner found.
# PREFIX is an installed tree (make install DESTDIR=/tmp/inst gives
# /tmp/inst/usr/local), so rebuilding the work tree cannot disturb a run.
#   usage: bench/tune/curves.sh PREFIX OUT_DIR [TRIALS] [K] [SEEDS] [TARGET]
set -eu
p=$1 out=$2 trials=${3:-16} k=${4:-6} seeds=${5:-5} target=${6:-llvm-cpu-1thread}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH="$p/lib" TVM_PLUGIN_PATH="$p/lib/tvm/plugins" \
       TVM_NO_INSTALLED=1 TVM_TARGET_PATH="$here/../../targets"
for s in $(seq 1 "$seeds"); do
  rm -f "$out/seed$s.jsonl" # an earlier run's (tvmc tune keeps a log unless told)
  "$p/bin/tvmc" tune zoo:resnet18 --target "$target" --trials "$trials" \
    --tasks Conv --max-tasks "$k" --tuner xgb,random,ga --seed "$s" \
    --log "$out/seed$s.jsonl" --curves "$out/seed$s.csv" \
    --svg "$out/seed$s.svg" > "$out/seed$s.txt" 2>&1
done
python3 "$here/curves.py" "$out"/seed*.csv | tee "$out/summary.txt"
