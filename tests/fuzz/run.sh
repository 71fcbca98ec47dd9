#!/bin/bash
# tests/fuzz/run.sh FUZZDIR SECONDS [WORKDIR] - runs each libFuzzer target
# built by `make fuzz` (tests/fuzz/build.sh): first once over every past
# crash of its reader (tests/fuzz/crashes/READER/), then for SECONDS on
# its seed corpus (tests/fuzz/corpus/READER/, never modified: new inputs
# go to WORKDIR/READER/).  Prints one summary line per fuzzer (runs,
# execs/s, cov, ft) and exits non-zero if any crashed, leaked or hung;
# the input that did is left in WORKDIR as crash-*, leak-* or timeout-*.
set -u
fz=$(cd "${1:?usage: run.sh FUZZDIR SECONDS [WORKDIR]}" && pwd)
secs=${2:?usage: run.sh FUZZDIR SECONDS [WORKDIR]}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-$fz/work}
mkdir -p "$work"
status=0
# reader directory -> fuzzer, and the longest input worth trying
for entry in onnx:fuzz_onnx:65536 npy:fuzz_npy:4096 yaml:fuzz_target_yaml:16384 \
             package:fuzz_package:65536 tuning_log:fuzz_tuning_log:16384; do
  IFS=: read -r reader bin maxlen <<<"$entry"
  exe=$fz/$bin
  [ -x "$exe" ] || { echo "run.sh: $exe missing: make fuzz" >&2; status=1; continue; }
  mkdir -p "$work/$reader"
  log=$work/$reader.log
  crashes=("$src/tests/fuzz/crashes/$reader"/*)
  if [ -e "${crashes[0]}" ]; then
    if ! "$exe" -rss_limit_mb=2048 -timeout=10 "${crashes[@]}" >"$log.crashes" 2>&1; then
      echo "FAIL $bin: a past crash input fails again (see $log.crashes)"
      status=1
      continue
    fi
  fi
  "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$work/$reader-" \
    "$work/$reader" "$src/tests/fuzz/corpus/$reader" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "FAIL $bin after ${runs:-?} runs: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$log") (log $log)"
    status=1
  else
    echo "ok   $bin: ${secs} s, ${runs:-?} runs, ${eps:-?} exec/s, $cov, $ft"
  fi
done
exit $status
