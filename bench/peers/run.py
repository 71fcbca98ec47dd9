#!/usr/bin/env python3
"""bench/peers/run.py - tvm-c against ONNX Runtime and Apache TVM, on the
same ONNX file, the same input, the same machine and thread count, in one
interleaved run.

    python3 bench/peers/run.py [--build build] [--models resnet18,mobilenet_v2]
        [--threads 1,2] [--runs 20] [--rounds 4] [--tuning-log LOG]
        [--tvm-tune-trials N] [--write-results]

What it does, per model and thread count:
  1. `tvmc export zoo:MODEL` writes the zoo model as an ONNX file: the one
     file every framework reads (a --models entry ending in .onnx is such
     a file already, of one float input: a single operator, say);
  2. one seeded input (numpy), saved as .npy (the workers and TvmC also
     take a .json mapping input names to .npy files, for models with
     several inputs: bench/peers/torch_models.py uses them that way);
  3. tvm-c: `tvmc compile FILE.onnx` (timed: the command's wall time, from
     the ONNX file to a written package, with --tuning-log when given;
     twice: cold, on an empty compiled-code cache, then warm, on what the
     first compile left in it) and `tvmc run` for
     latency and outputs; ONNX Runtime: an InferenceSession with
     intra_op_num_threads = T; Apache TVM (if installed): relax's ONNX
     frontend, tvm.compile for the host CPU, VirtualMachine; untuned, and
     tuned by MetaSchedule when --tvm-tune-trials N > 0 (N trials in all);
  4. `rounds` rounds, each timing every framework `runs/rounds` times
     after warm-up, one after the other, so a noisy phase of the machine
     hits everyone; the figure is the median over all runs (>= 20),
     and a second ratio compares each side's fastest run (on a shared
     VM whose neighbours load memory in phases, medians can land in
     different phases; the fastest runs are the same quiet machine);
  5. outputs compared with ONNX Runtime's (max |diff| / max |ref|), so no
     one wins by computing something else.
Every framework runs in its own worker process (thread pools are sized at
start-up), driven over a pipe.  A peer that cannot be imported is
reported as missing with the reason, never silently dropped.  The report
(table + SVG bar chart) goes to stdout and, with --write-results, into
bench/RESULTS.md between the peers markers.  Ratios are ours/peer
latency: below 1.0 means tvm-c is faster.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


# ---- workers (each runs in its own process) --------------------------------

def load_feeds(xfile):
    """The inputs: xfile is one .npy (the model's first input) or a .json
    object mapping input names to .npy paths (models with several)."""
    import numpy as np
    if xfile.endswith(".json"):
        with open(xfile) as f:
            return {k: np.load(v) for k, v in json.load(f).items()}
    return np.load(xfile)


def worker_loop(kind, model, threads, xfile, extra):
    """Compiles/loads the model once, then answers 'time N' with a JSON list
    of N latencies in ms and 'out PATH' by saving the first output."""
    import numpy as np
    x = load_feeds(xfile)
    info = {}
    if kind == "ort":
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        sess = ort.InferenceSession(model, so,
                                    providers=["CPUExecutionProvider"])
        feeds = x if isinstance(x, dict) else {sess.get_inputs()[0].name: x}
        run = lambda: sess.run(None, feeds)
        info["version"] = ort.__version__
    elif kind in ("tvm", "tvm-tuned"):
        import onnx
        import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx
        target = tvm.target.Target(extra["tvm_target"])
        t0 = time.time()
        mod = from_onnx(onnx.load(model), keep_params_in_input=False)
        if kind == "tvm-tuned":
            work = tempfile.mkdtemp(prefix="tvm_ms_")
            # MetaSchedule prints its progress on stdout, which is this
            # worker's pipe to the driver: send it to stderr meanwhile
            sys.stdout.flush()
            saved = os.dup(1)
            os.dup2(2, 1)
            t1 = time.time()
            try:
                with target:
                    mod = relax.get_pipeline(
                        "static_shape_tuning", target=target, work_dir=work,
                        total_trials=extra["trials"])(mod)
            finally:
                sys.stdout.flush()
                os.dup2(saved, 1)
                os.close(saved)
            info["tune_s"] = time.time() - t1
        ex = tvm.compile(mod, target=target)
        info["compile_s"] = time.time() - t0
        vm = relax.VirtualMachine(ex, tvm.cpu())
        mk = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") \
            else tvm.nd.array
        xts = [mk(v) for v in (x.values() if isinstance(x, dict) else [x])]

        def run():
            r = vm["main"](*xts)
            while isinstance(r, (list, tuple)) or hasattr(r, "__getitem__") \
                    and not hasattr(r, "numpy"):
                r = r[0]
            return [r.numpy()]
        info["version"] = tvm.__version__
    else:
        raise SystemExit("unknown worker " + kind)
    for _ in range(3):
        run()
    print(json.dumps({"ready": True, **info}), flush=True)
    for line in sys.stdin:
        cmd, arg = line.split(None, 1)
        if cmd == "time":
            ms = []
            for _ in range(int(arg)):
                t0 = time.perf_counter()
                run()
                ms.append((time.perf_counter() - t0) * 1e3)
            print(json.dumps(ms), flush=True)
        elif cmd == "out":
            np.save(arg.strip(), np.asarray(run()[0]))
            print(json.dumps("ok"), flush=True)


class Worker:
    def __init__(self, kind, model, threads, xfile, extra):
        env = dict(os.environ)
        env["OMP_NUM_THREADS"] = str(threads)
        env["TVM_NUM_THREADS"] = str(threads)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", kind,
             model, str(threads), xfile, json.dumps(extra)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        while True:  # skip anything a library printed before "ready"
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(kind + " worker failed to start")
            try:
                info = json.loads(line)
            except ValueError:
                continue
            if isinstance(info, dict) and info.get("ready"):
                break
        self.info = info

    def ask(self, cmd):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# ---- tvm-c through tvmc ------------------------------------------------------

class TvmC:
    def __init__(self, build, model, threads, xname, xfile, tmp, tuning_log,
                 compile_args=()):
        self.tvmc = os.path.join(build, "tvmc")
        self.env = dict(os.environ)
        self.env.setdefault("TVM_PLUGIN_PATH",
                            os.path.join(build, "plugins/llvm-cpu/.libs"))
        self.env.setdefault("TVM_TARGET_PATH", os.path.join(SRC, "targets"))
        self.target = os.path.join(SRC, "bench/targets",
                                   "llvm-cpu-%dt.yaml" % threads)
        self.pkg = os.path.join(tmp, "m%dt.tvmpkg" % threads)
        cmd = [self.tvmc, "compile", model, "--target", self.target,
               "-o", self.pkg]
        if tuning_log:
            cmd += ["--tuning-log", tuning_log]
        cmd += list(compile_args)  # e.g. --input-shape for symbolic dims
        # the whole command's wall time: reading the ONNX file, compiling
        # and writing the package (tvmc's own "compile" line leaves the
        # reading and the writing out); first cold, on an empty
        # compiled-code cache of this run's own, then again on what the
        # first left in it (the second compile of the same file: warm)
        self.env["TVM_CACHE_DIR"] = os.path.join(
            tmp, "cache_%s_%dt" % (os.path.basename(model), threads))
        self.compile_s = self.compile_warm_s = None
        for warm in (0, 1):
            t0 = time.time()
            r = subprocess.run(cmd, env=self.env, capture_output=True,
                               text=True)
            if warm:
                self.compile_warm_s = time.time() - t0
            else:
                self.compile_s = time.time() - t0
            if r.returncode:
                raise RuntimeError("tvmc compile failed: " + r.stderr.strip())
        if xfile.endswith(".json"):  # several inputs (see load_feeds)
            with open(xfile) as f:
                self.inputs = ["%s=%s" % kv for kv in json.load(f).items()]
        else:
            self.inputs = ["%s=%s" % (xname, xfile)]
        self.info = {"compile_s": self.compile_s,
                     "compile_warm_s": self.compile_warm_s}

    def _run(self, n, outdir=None):
        cmd = [self.tvmc, "run", self.pkg, "--target", self.target,
               "--repeat", str(n), "--json"]
        for i in self.inputs:
            cmd += ["--input", i]
        if outdir:
            cmd += ["--output-dir", outdir]
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("tvmc run failed: " + r.stderr.strip())
        return json.loads(r.stdout)

    def ask(self, cmd):
        op, arg = cmd.split(None, 1)
        if op == "time":
            return self._run(int(arg))["times_ms"]
        outdir = tempfile.mkdtemp()
        self._run(1, outdir)
        import numpy as np
        files = sorted(f for f in os.listdir(outdir) if f.endswith(".npy"))
        np.save(arg.strip(), np.load(os.path.join(outdir, files[0])))
        return "ok"

    def close(self):
        pass


# ---- the driver -----------------------------------------------------------------

def machine_header(build):
    exe = os.path.join(build, "bench/fma_peak")
    try:
        out = subprocess.run([exe], capture_output=True, text=True).stdout
        return out.splitlines()[0].lstrip("# ").strip()
    except (OSError, IndexError):
        return "cpu: unknown (build bench/fma_peak first)"


def peer_status():
    st = {}
    for kind, mod in (("ort", "onnxruntime"), ("tvm", "tvm")):
        r = subprocess.run([sys.executable, "-c",
                            "import %s, sys; print(%s.__version__)"
                            % (mod, mod)], capture_output=True, text=True)
        st[kind] = (r.stdout.strip() if r.returncode == 0 else None,
                    (r.stderr.strip().splitlines() or ["?"])[-1])
    return st


def host_tvm_target(threads):
    """TVM's LLVM target (JSON form) for the host's widest vector ISA."""
    flags = open("/proc/cpuinfo").read()
    t = {"kind": "llvm", "num-cores": threads}
    if re.search(r"\bavx512f\b", flags):
        t["mcpu"] = "skylake-avx512"
    elif re.search(r"\bavx2\b", flags):
        t["mcpu"] = "haswell"
    return t


def svg_bars(rows, path):
    """Horizontal bars of ours/peer latency ratios (1.0 = parity)."""
    bars = [(r["label"], r["ratio"]) for r in rows if r["ratio"]]
    if not bars:
        return
    w, bh, left = 640, 18, 260
    h = 40 + bh * len(bars)
    top = max(1.5, max(v for _, v in bars) * 1.05)
    sx = lambda v: left + (w - left - 20) * v / top
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (w, h),
           '<text x="10" y="14">latency ratio tvm-c / peer '
           '(below 1 = tvm-c faster)</text>']
    for i, (label, v) in enumerate(bars):
        y = 24 + i * bh
        col = "#2a7" if v <= 1 else "#d54"
        out.append('<text x="10" y="%d">%s</text>' % (y + 12, label))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                   % (left, y + 2, sx(v) - left, bh - 5, col))
        out.append('<text x="%.1f" y="%d">%.2f</text>' % (sx(v) + 3, y + 12,
                                                         v))
    out.append('<line x1="%.1f" y1="20" x2="%.1f" y2="%d" stroke="#000" '
               'stroke-dasharray="3,3"/>' % (sx(1), sx(1), h))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--models", default="resnet18,mobilenet_v2,squeezenet,"
                    "resnet50")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--tuning-log", default=None)
    ap.add_argument("--tvm-tune-trials", type=int, default=0)
    ap.add_argument("--write-results", action="store_true")
    a = ap.parse_args()
    # tvmc runs with the framework workers' working directory: a relative
    # --build would name no plugin directory there
    a.build = os.path.abspath(a.build)
    import numpy as np

    header = machine_header(a.build)
    peers = peer_status()
    tmp = tempfile.mkdtemp(prefix="peers_")
    per_round = max(1, -(-a.runs // a.rounds))
    lines = ["machine: " + header,
             "command: python3 bench/peers/run.py " + " ".join(sys.argv[1:]),
             "date: " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "medians over %d runs per framework (%d interleaved rounds of "
             "%d, after 3 warm-up runs)" % (per_round * a.rounds, a.rounds,
                                            per_round)]
    for kind, (ver, why) in peers.items():
        lines.append("peer %s: %s" % (
            {"ort": "ONNX Runtime", "tvm": "Apache TVM"}[kind],
            ver if ver else "MISSING (%s)" % why))
    if peers["tvm"][0] and a.tvm_tune_trials <= 0:
        lines.append("peer Apache TVM tuned (MetaSchedule): not run "
                     "(pass --tvm-tune-trials N)")
    rows = []
    for model in a.models.split(","):
        if model.endswith(".onnx"):  # a file of one input, as it is
            onnx_file = os.path.abspath(model)
            model = os.path.basename(model)[:-5]
        else:
            onnx_file = os.path.join(tmp, model + ".onnx")
            r = subprocess.run([os.path.join(a.build, "tvmc"), "export",
                                "zoo:" + model, "-o", onnx_file],
                               capture_output=True, text=True)
            if r.returncode:
                lines.append("%s: export failed: %s" % (model,
                                                        r.stderr.strip()))
                continue
        import onnx
        g = onnx.load(onnx_file, load_external_data=False).graph
        inp = g.input[0]
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        x = np.random.default_rng(0).standard_normal(shape).astype("float32")
        xfile = os.path.join(tmp, model + "_x.npy")
        np.save(xfile, x)
        for t in (int(s) for s in a.threads.split(",")):
            fws = {}
            try:
                fws["tvm-c"] = TvmC(a.build, onnx_file, t, inp.name, xfile,
                                    tmp, a.tuning_log)
            except RuntimeError as e:
                lines.append("%s %dt: tvm-c failed: %s" % (model, t, e))
                continue
            extra = {"tvm_target": host_tvm_target(t),
                     "trials": a.tvm_tune_trials}
            kinds = [("ort", "ONNX Runtime")] if peers["ort"][0] else []
            if peers["tvm"][0]:
                kinds.append(("tvm", "TVM untuned"))
                if a.tvm_tune_trials > 0:
                    kinds.append(("tvm-tuned", "TVM MetaSchedule %d trials"
                                  % a.tvm_tune_trials))
            names = {"tvm-c": "tvm-c"}
            for kind, label in kinds:
                try:
                    fws[kind] = Worker(kind, onnx_file, t, xfile, extra)
                    names[kind] = label
                except RuntimeError as e:
                    lines.append("%s %dt: %s failed: %s" % (model, t, label,
                                                           e))
            times = {k: [] for k in fws}
            for _ in range(a.rounds):
                for k, fw in fws.items():
                    time.sleep(0.2)  # let the previous pool's spinners stop
                    times[k] += fw.ask("time %d" % per_round)
            outs = {}
            for k, fw in fws.items():
                p = os.path.join(tmp, "%s_%s_%d.npy" % (model, k, t))
                fw.ask("out " + p)
                outs[k] = np.load(p)
                fw.close()
            ref = outs.get("ort")
            ours = statistics.median(times["tvm-c"])
            for k in fws:
                if k == "tvm-c":
                    continue
                med = statistics.median(times[k])
                err = float(np.max(np.abs(outs["tvm-c"] - outs[k])) /
                            max(1e-12, float(np.max(np.abs(outs[k])))))
                rows.append({
                    "label": "%s %dt vs %s" % (model, t, names[k]),
                    "model": model, "threads": t, "peer": names[k],
                    "ours_ms": ours, "peer_ms": med, "ratio": ours / med,
                    "min_ratio": min(times["tvm-c"]) / min(times[k]),
                    "rel_err": err,
                    "ours_compile_s": fws["tvm-c"].info["compile_s"],
                    "ours_compile_warm_s": fws["tvm-c"].info["compile_warm_s"],
                    "peer_compile_s": fws[k].info.get("compile_s"),
                    "peer_tune_s": fws[k].info.get("tune_s")})
            if ref is None:
                rows.append({"label": "%s %dt" % (model, t), "model": model,
                             "threads": t, "peer": "-", "ours_ms": ours,
                             "peer_ms": None, "ratio": None, "rel_err": None,
                             "ours_compile_s": fws["tvm-c"].info["compile_s"],
                             "ours_compile_warm_s":
                                 fws["tvm-c"].info["compile_warm_s"],
                             "peer_compile_s": None})
    table = ["| model | threads | peer | tvm-c ms | peer ms | ours/peer | "
             "ours/peer of the fastest runs | "
             "max rel. output diff | tvm-c compile s (cold / warm cache) | "
             "peer compile s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        f = lambda v, fmt: (fmt % v) if v is not None else "-"
        table.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["threads"], r["peer"], f(r["ours_ms"], "%.3g"),
            f(r["peer_ms"], "%.3g"), f(r["ratio"], "%.2fx"),
            f(r.get("min_ratio"), "%.2fx"),
            f(r["rel_err"], "%.1e"),
            f(r["ours_compile_s"], "%.2f") + " / " +
            f(r.get("ours_compile_warm_s"), "%.2f"),
            f(r["peer_compile_s"], "%.1f")))
    for r in rows:
        if r.get("peer_tune_s"):
            table.append("\n%s %dt: %s tuned in %.0f s of its compile's "
                         "%.0f s" % (r["model"], r["threads"], r["peer"],
                                     r["peer_tune_s"], r["peer_compile_s"]))
    svg = os.path.join(HERE, "latency.svg")
    svg_bars(rows, svg)
    report = "\n".join(["    " + l for l in lines]) + "\n\n" + \
        "\n".join(table) + "\n\n![ours/peer latency](peers/latency.svg)\n"
    print(report)
    if a.write_results:
        write_results_block("peers", "Side by side with ONNX Runtime and "
                            "Apache TVM", report)
    return 0


def write_results_block(key, title, report):
    """Puts report into bench/RESULTS.md between the <!-- KEY:begin/end -->
    markers, replacing what was there (a new section called title at the
    end when the markers are missing)."""
    path = os.path.join(SRC, "bench/RESULTS.md")
    text = open(path).read()
    begin, end = "<!-- %s:begin -->" % key, "<!-- %s:end -->" % key
    block = begin + "\n" + report + end
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end),
                      lambda _: block, text, flags=re.S)
    else:
        text += "\n## %s\n\n" % title + block + "\n"
    open(path, "w").write(text)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker_loop(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5],
                    json.loads(sys.argv[6]))
    else:
        sys.exit(main())
