#!/usr/bin/env python3
"""bench/tune/curves.py - measurements to reach 95% of the best, per layer.

Reads the --curves CSV files of tvmc tune (tuner, seed, task, workload,
measurement, best_gflops).  For each layer the target is 95% of the best
GFLOP/s any tuner reached in any seed; for each tuner and seed, the first
measurement whose best-so-far reaches it (a run that never does counts as
'not reached' and is reported as such, not as its budget).  Prints the
median over seeds per layer and tuner, and the ratio random / xgb.
"""
import csv, statistics, sys
from collections import defaultdict

curves = defaultdict(list)  # (workload, tuner, seed) -> [best...]
for path in sys.argv[1:]:
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["workload"], row["tuner"], row["seed"])
            curves[key].append((int(row["measurement"]), float(row["best_gflops"])))
layers = sorted({k[0] for k in curves})
tuners = ["xgb", "random", "ga"]
print("%-40s %8s " % ("layer (workload)", "best") +
      " ".join("%14s" % t for t in tuners) + "  random/xgb")
allmed = defaultdict(list)
for wl in layers:
    best = max(g for k, c in curves.items() if k[0] == wl for _, g in c)
    goal = 0.95 * best
    cells, med = [], {}
    for t in tuners:
        hits, miss = [], 0
        for k, c in curves.items():
            if k[0] != wl or k[1] != t:
                continue
            c.sort()
            n = next((m for m, g in c if g >= goal), None)
            if n is None:
                miss += 1
            else:
                hits.append(n)
        if hits and len(hits) * 2 > len(hits) + miss:
            srt = sorted(hits + [float("inf")] * miss)
            med[t] = statistics.median(srt)
            allmed[t].append(med[t])
            cells.append("%8.1f (%d/%d)" % (med[t], len(hits), len(hits) + miss))
        else:
            cells.append("  n/a (%d/%d)" % (len(hits), len(hits) + miss))
    ratio = med["random"] / med["xgb"] if "xgb" in med and "random" in med else float("nan")
    print("%-40s %8.1f " % (wl[:40], best) + " ".join("%14s" % c for c in cells) +
          "  %6.2f" % ratio)
print("median over layers: " + ", ".join(
    "%s %.1f" % (t, statistics.median(allmed[t])) for t in tuners if allmed[t]))
