#!/usr/bin/env python3
"""bench/compare_trees.py - the same benchmarks from two build trees of
tvm-c, alternated in one run, to show that a change kept performance.

    python3 bench/compare_trees.py OLD_BUILD NEW_BUILD [--rounds 3]
        [--models resnet18,mobilenet_v2,squeezenet] [--runs 15]

Each round runs OLD's bench/zoo, NEW's bench/zoo, OLD's bench/matmul and
NEW's bench/matmul (each tree with its own plugins and targets), so a
noisy phase of the machine hits both.  Figures: per model the median over
rounds of bench/zoo's fused median latency (ms); for matmul 1024^3 the
median of tvm-c's GFLOP/s on 1 and 2 threads.  The ratio is new/old
(latency: below 1.0 is faster; GFLOP/s: above 1.0 is faster).
"""
import argparse
import os
import statistics
import subprocess
import sys


def run(build, args):
    env = dict(os.environ)
    env["TVM_PLUGIN_PATH"] = os.path.join(build, "plugins/llvm-cpu/.libs")
    env["TVM_TARGET_PATH"] = os.path.join(build, "..", "targets")
    env["TVM_NO_INSTALLED"] = "1"
    env.pop("OPENBLAS_CORETYPE", None)
    r = subprocess.run([os.path.join(build, args[0])] + args[1:], env=env,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s %s failed:\n%s%s" % (build, args, r.stdout, r.stderr))
    return r.stdout


def zoo_ms(out, models):
    got = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] in models and len(f) >= 12 and f[1][0].isdigit():
            got[f[0]] = float(f[6])  # the table row: fused median ms
    return got


def matmul_gflops(out):
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] in ("1", "2"):
            got[int(f[0])] = float(f[1])
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default="resnet18,mobilenet_v2,squeezenet")
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    models = a.models.split(",")
    head = run(a.new, ["bench/fma_peak"]).splitlines()[0]
    zoo = {"old": {m: [] for m in models}, "new": {m: [] for m in models}}
    mm = {"old": {1: [], 2: []}, "new": {1: [], 2: []}}
    for _ in range(a.rounds):
        for side, build in (("old", a.old), ("new", a.new)):
            got = zoo_ms(run(build, ["bench/zoo", str(a.runs)] + models),
                         models)
            for m in models:
                zoo[side][m].append(got[m])
        for side, build in (("old", a.old), ("new", a.new)):
            got = matmul_gflops(run(build, ["bench/matmul", "1024", "3"]))
            for t in (1, 2):
                mm[side][t].append(got[t])
    print(head)
    print("old: %s\nnew: %s\n%d alternated rounds" % (a.old, a.new, a.rounds))
    print("\n| benchmark | old | new | new/old |\n|---|---|---|---|")
    for m in models:
        o, n = statistics.median(zoo["old"][m]), statistics.median(zoo["new"][m])
        print("| %s latency, ms (2 threads, fused) | %.2f | %.2f | %.2f |"
              % (m, o, n, n / o))
    for t in (1, 2):
        o, n = statistics.median(mm["old"][t]), statistics.median(mm["new"][t])
        print("| matmul 1024^3, GFLOP/s, %d thread(s) | %.1f | %.1f | %.2f |"
              % (t, o, n, n / o))


if __name__ == "__main__":
    main()
