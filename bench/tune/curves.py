#!/usr/bin/env python3
"""bench/tune/curves.py - measurements to reach 95% of the best, per layer.

Reads the --curves CSV files of tvmc tune (tuner, seed, task, workload,
measurement, best_gflops).  Goal 1: 95% of the best GFLOP/s any tuner
reached in any seed.  On a noisy machine that best single measurement is
often an outlier no run reaches again, so goal 2 is robust: 95% of the
median, over all runs of all tuners, of each run's final best.  For each
tuner and seed: the first measurement whose best-so-far reaches the goal
(a run that never does counts as not reached, never as its budget).
Prints the median over seeds (n/a when most seeds never reach it), the
ratio random / xgb, and the median final best GFLOP/s per tuner.
"""
import csv, statistics, sys
from collections import defaultdict

curves = defaultdict(list)  # (workload, tuner, seed) -> [(measurement, best)]
for path in sys.argv[1:]:
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["workload"], row["tuner"], row["seed"])
            curves[key].append((int(row["measurement"]), float(row["best_gflops"])))
for c in curves.values():
    c.sort()
layers = sorted({k[0] for k in curves})
tuners = ["xgb", "random", "ga"]


def runs(wl, t=None):
    return [c for k, c in curves.items() if k[0] == wl and (t is None or k[1] == t)]


def goal_best(wl):
    return max(g for c in runs(wl) for _, g in c)


def goal_robust(wl):
    return statistics.median(c[-1][1] for c in runs(wl))


for title, goalf in (("95% of the best measurement of any run", goal_best),
                     ("95% of the median final best (robust)", goal_robust)):
    print("\n== measurements to reach " + title)
    print("%-40s %8s " % ("layer (workload)", "goal") +
          " ".join("%14s" % t for t in tuners) + "  random/xgb")
    allmed = defaultdict(list)
    for wl in layers:
        goal = 0.95 * goalf(wl)
        cells, med = [], {}
        for t in tuners:
            hits, miss = [], 0
            for c in runs(wl, t):
                n = next((m for m, g in c if g >= goal), None)
                if n is None:
                    miss += 1
                else:
                    hits.append(n)
            tot = len(hits) + miss
            if tot and len(hits) * 2 > tot:
                med[t] = statistics.median(hits + [float("inf")] * miss)
                allmed[t].append(med[t])
                cells.append("%8.1f (%d/%d)" % (med[t], len(hits), tot))
            else:
                cells.append("  n/a (%d/%d)" % (len(hits), tot))
        ratio = (med["random"] / med["xgb"]) if "xgb" in med and "random" in med else float("nan")
        print("%-40s %8.1f " % (wl[:40], goal) + " ".join("%14s" % c for c in cells) +
              "  %6.2f" % ratio)
    print("median over layers where reached: " + ", ".join(
        "%s %.1f (%d layers)" % (t, statistics.median(allmed[t]), len(allmed[t]))
        for t in tuners if allmed[t]))

print("\n== median final best GFLOP/s over seeds (measurements per run)")
for wl in layers:
    cells = []
    for t in tuners:
        r = runs(wl, t)
        if r:
            cells.append("%s %.1f (%d)" % (t, statistics.median(c[-1][1] for c in r),
                                           statistics.median(len(c) for c in r)))
    print("%-40s %s" % (wl[:40], "  ".join(cells)))
