#!/usr/bin/env python3
"""bench/winograd.py - llvm-cpu's Winograd F(4x4, 3x3) and F(2x2, 3x3)
against its direct convolution template, in the same build, on whatever
x86 CPU this is.

    python3 bench/winograd.py [--build build] [--threads 1] [--rounds 3]
                              [--models resnet18,squeezenet] [--no-convs]

Single convolutions (3x3, pad 1, C -> C channels, + Relu, written as ONNX
files with the onnx package) are compiled three times, with target files
that differ only in the llvm-cpu attributes winograd_min_tiles: 0 (never
Winograd) or 1 (Winograd wherever it applies) and winograd_tile 4 or 2;
zoo models twice, winograd_min_tiles 0 and -1 (the default policy,
which picks the tile per convolution).  The packages run alternately in
separate processes (`tvmc run PKG --repeat N`), `--rounds` times, and
the report gives the ratios of the fastest per-process medians (Winograd
/ direct; below 1 is faster).  A single convolution repeated on its own
keeps its weights in the caches; in a model they may stream from memory
(`tvmc run PKG --profile`, "in run ms", shows each kernel both ways), so
the model rows are what the default policy is judged by.

Every ISA the CPU has is measured: the native one, and AVX2 code
(`mcpu: x86-64-v3`) when the CPU has AVX-512 too (the CPU is read from
/proc/cpuinfo, never assumed; a CPU without AVX2 runs the native column
only).  The first line is the machine (bench/fma_peak: model, ISA,
measured FMA peak).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

CONVS = [(16, 56), (32, 56), (32, 28), (64, 28), (256, 28), (64, 14),
         (128, 14), (256, 14), (512, 14), (64, 7), (128, 7), (256, 7),
         (512, 7)]


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def machine_header(build):
    try:
        out = subprocess.run([os.path.join(build, "bench/fma_peak")],
                             capture_output=True, text=True).stdout
        return out.splitlines()[0].lstrip("# ").strip()
    except (OSError, IndexError):
        return "cpu: unknown (build bench/fma_peak first)"


def write_conv(path, C, H):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(C * 1000 + H)
    w = numpy_helper.from_array(
        (rng.standard_normal((C, C, 3, 3)) * 0.05).astype(np.float32), "w")
    b = numpy_helper.from_array(np.zeros(C, np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"],
                              pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
             helper.make_node("Relu", ["y"], ["z"])]
    g = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, H])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, C, H, H])],
        [w, b])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              path)


def write_target(d, name, threads, tiles, mcpu, tile=-1):
    attrs = "num_threads: %d, winograd_min_tiles: %d, winograd_tile: %d" % (
        threads, tiles, tile)
    if mcpu:
        attrs += ", mcpu: " + mcpu
    path = os.path.join(d, name + ".yaml")
    with open(path, "w") as f:
        f.write("name: %s\nplugin: llvm-cpu\nkeys: [cpu]\nattrs: {%s}\n"
                % (name, attrs))
    return path


def tvmc(build, env, *args):
    r = subprocess.run([os.path.join(build, "tvmc")] + list(args), env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("tvmc %s: %s" % (" ".join(args),
                                            (r.stderr or r.stdout).strip()))
    return r.stdout


def median_ms(build, env, pkg, repeat):
    out = tvmc(build, env, "run", pkg, "--repeat", str(repeat))
    m = re.search(r"median ([0-9.]+) ms", out)
    return float(m.group(1))


def compare(build, env, d, model, targets, rounds, repeat):
    pkgs = []
    for t in targets:
        pkg = os.path.join(d, "%s-%s.pkg" % (os.path.basename(model), t))
        tvmc(build, env, "compile", model, "--target",
             os.path.join(d, t + ".yaml"), "-o", pkg)
        pkgs.append(pkg)
    best = [float("inf")] * len(pkgs)
    for _ in range(rounds):
        for i, pkg in enumerate(pkgs):
            best[i] = min(best[i], median_ms(build, env, pkg, repeat))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default="resnet18,squeezenet")
    ap.add_argument("--no-convs", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    flags = cpu_flags()
    isas = [("native", None)]
    if "avx512f" in flags and "avx2" in flags and "fma" in flags:
        isas.append(("AVX2 code", "x86-64-v3"))
    d = tempfile.mkdtemp(prefix="tvm_winograd_bench_")
    env = dict(os.environ)
    env["TVM_TARGET_PATH"] = d + ":" + env.get("TVM_TARGET_PATH", "")
    env["TVM_PLUGIN_PATH"] = (os.path.join(build, "plugins/llvm-cpu/.libs") +
                              ":" + env.get("TVM_PLUGIN_PATH", ""))
    print("machine: " + machine_header(build))
    print("command: python3 bench/winograd.py " + " ".join(sys.argv[1:]))
    print("threads %d; fastest of %d alternated process medians each; "
          "ratio = Winograd / direct" % (a.threads, a.rounds))
    for k, (label, mcpu) in enumerate(isas):
        for name, tiles, tile in (("direct", 0, -1), ("f4", 1, 4),
                                  ("f2", 1, 2), ("auto", -1, -1)):
            write_target(d, "wb%d_%s" % (k, name), a.threads, tiles, mcpu,
                         tile)
    rows = []
    if not a.no_convs:
        for C, H in CONVS:
            path = os.path.join(d, "conv%d_%d.onnx" % (C, H))
            write_conv(path, C, H)
            cells = []
            for k, _ in enumerate(isas):
                dm, w4, w2 = compare(build, env, d, path,
                                     ["wb%d_%s" % (k, x)
                                      for x in ("direct", "f4", "f2")],
                                     a.rounds, 50)
                cells.append("%.3f / %.3f / %.3f ms: %.2f, %.2f"
                             % (dm, w4, w2, w4 / dm, w2 / dm))
            rows.append(("3x3 conv %dx%d, %d ch" % (H, H, C), cells))
            print("  ".join([rows[-1][0]] + cells), flush=True)
    for m in [x for x in a.models.split(",") if x]:
        path = os.path.join(d, m + ".onnx")
        tvmc(build, env, "export", "zoo:" + m, "-o", path)
        cells = []
        for k, _ in enumerate(isas):
            dm, wm = compare(build, env, d, path,
                             ["wb%d_direct" % k, "wb%d_auto" % k], a.rounds,
                             20)
            cells.append("%.2f / %.2f ms: %.2f" % (dm, wm, wm / dm))
        rows.append(("zoo:%s (default policy)" % m, cells))
        print("  ".join([rows[-1][0]] + cells), flush=True)
    print()
    print("| case | " + " | ".join(
        "%s: direct / F(4x4) / F(2x2), ratios (models: direct / default)"
        % l for l, _ in isas) + " |")
    print("|---|" + "---|" * len(isas))
    for name, cells in rows:
        print("| %s | %s |" % (name, " | ".join(cells)))


if __name__ == "__main__":
    main()
