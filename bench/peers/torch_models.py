#!/usr/bin/env python3
"""bench/peers/torch_models.py - models exported by torch.onnx.export,
compiled by tvm-c and checked and timed against ONNX Runtime.

    python3 bench/peers/torch_models.py [--torch-python PY] [--cache DIR]
        [--build build] [--models resnet18,...] [--opsets 13,17,18]
        [--threads 1] [--runs 20] [--rounds 4] [--write-results]
        [--check] [--write-fixtures DIR]

What it does:
  1. export (once; the files are cached in --cache, default
     $TVM_TORCH_MODELS or ~/.cache/tvm-c/torch-models): every model with
     random weights (torch.manual_seed(0); BatchNorm running statistics
     randomised too, so they are not the identity) at every opset, with a
     seeded input, its batch and sequence sizes static (symbolic in the
     *_dyn variant, compiled with --input-shape).  Opsets 13 and 17
     go through the TorchScript exporter (dynamo=False), opset 18 through
     the dynamo exporter (dynamo=True); when that exporter fails the other
     one is tried, and the table says so.  The export runs in --torch-python
     (default $TVM_TORCH_PYTHON, else this interpreter), which needs torch,
     torchvision and onnxscript; torch's own output is saved beside the
     model;
  2. per model and opset: `tvmc compile` and `tvmc run`, ONNX Runtime in a
     worker process, both through bench/peers/run.py's machinery (same
     thread count, interleaved rounds, medians of >= 20 runs after
     warm-up);
  3. outputs: tvm-c's and ONNX Runtime's are both compared with torch's;
     a model matches when max|ours - ort| <= TOL * max|ort|
     (TOL = 1e-4, float32 throughout);
  4. the table (latency ratio tvm-c / ONNX Runtime: below 1.0 means tvm-c
     is faster) goes to stdout and, with --write-results, into
     bench/RESULTS.md between the torch-models markers.
--check: the small models only (tiny_cnn, bert_tiny; see --models), no
timing, exit 1 on any failure and 77 (skipped) with the reason when torch
cannot be imported: `make check` runs it that way through
tests/e2e/onnx/test_torch_export.sh.
--write-fixtures DIR: copies the small models' files (model, inputs,
torch's outputs) into DIR (tests/e2e/onnx/torch/ holds the committed ones).
"""
import argparse
import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as peers  # noqa: E402  (bench/peers/run.py: workers, tvmc, header)

TOL = 1e-4
OPSETS = (13, 17, 18)
SMALL = ("tiny_cnn", "bert_tiny", "bert_tiny_dyn", "if_dyn", "if1_dyn")
ALL = ("resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
       "vit_tiny", "bert_tiny", "bert_tiny_dyn", "bert_small")


# ---- the export side (runs in the torch interpreter) ------------------------

def torch_modules():
    """The model definitions; imported only where torch is."""
    import math
    import torch
    from torch import nn

    class TinyCNN(nn.Module):
        """A torchvision-style CNN small enough to commit: conv/BN/ReLU,
        a residual block, max and adaptive average pooling, flatten,
        a linear classifier."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False),
                                      nn.BatchNorm2d(8), nn.ReLU(True),
                                      nn.MaxPool2d(3, 2, 1))
            self.c1 = nn.Conv2d(8, 8, 3, 1, 1, bias=False)
            self.b1 = nn.BatchNorm2d(8)
            self.c2 = nn.Conv2d(8, 8, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(8)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, 10)

        def forward(self, x):
            x = self.stem(x)
            y = torch.relu(self.b1(self.c1(x)))
            x = torch.relu(x + self.b2(self.c2(y)))
            return self.fc(torch.flatten(self.pool(x), 1))

    class Bert(nn.Module):
        """A BERT-style encoder: word + position + token-type embeddings,
        LayerNorm, `layers` post-norm blocks of multi-head self-attention
        (the padding mask applied as a bool mask through masked_fill when
        bool_mask, else HF-style as an additive float mask) and a GELU
        (erf) feed-forward, then a tanh pooler over the first token."""

        def __init__(self, vocab, hidden, layers, heads, inter, seq,
                     bool_mask):
            super().__init__()
            self.h, self.nh, self.bool_mask = hidden, heads, bool_mask
            self.word = nn.Embedding(vocab, hidden)
            self.pos = nn.Embedding(seq, hidden)
            self.tok_type = nn.Embedding(2, hidden)
            self.register_buffer("pos_ids", torch.arange(seq)[None, :])
            self.ln = nn.LayerNorm(hidden, eps=1e-12)
            self.blocks = nn.ModuleList()
            for _ in range(layers):
                self.blocks.append(nn.ModuleDict({
                    "q": nn.Linear(hidden, hidden),
                    "k": nn.Linear(hidden, hidden),
                    "v": nn.Linear(hidden, hidden),
                    "o": nn.Linear(hidden, hidden),
                    "ln1": nn.LayerNorm(hidden, eps=1e-12),
                    "fc1": nn.Linear(hidden, inter),
                    "fc2": nn.Linear(inter, hidden),
                    "ln2": nn.LayerNorm(hidden, eps=1e-12)}))
            self.pool = nn.Linear(hidden, hidden)

        def heads(self, x):
            b, s, _ = x.shape
            return x.view(b, s, self.nh, self.h // self.nh).transpose(1, 2)

        def forward(self, input_ids, attention_mask):
            b, s = input_ids.shape
            x = self.word(input_ids) + self.pos(self.pos_ids[:, :s]) + \
                self.tok_type(torch.zeros_like(input_ids))
            x = self.ln(x)
            if self.bool_mask:
                keep = attention_mask[:, None, None, :].to(torch.bool)
            else:
                add = (1.0 - attention_mask[:, None, None, :].float()) * \
                    -10000.0
            for blk in self.blocks:
                q, k, v = (self.heads(blk[n](x)) for n in "qkv")
                sc = q @ k.transpose(-1, -2) / math.sqrt(self.h // self.nh)
                if self.bool_mask:
                    sc = sc.masked_fill(~keep, torch.finfo(sc.dtype).min)
                else:
                    sc = sc + add
                ctx = (torch.softmax(sc, -1) @ v).transpose(1, 2)
                x = blk["ln1"](x + blk["o"](ctx.reshape(b, s, self.h)))
                f = blk["fc2"](nn.functional.gelu(blk["fc1"](x)))
                x = blk["ln2"](x + f)
            return torch.tanh(self.pool(x[:, 0]))

    class SizeBranch(nn.Module):
        """Python control flow on a tensor's size, kept by
        torch.jit.script: with a symbolic batch the TorchScript exporter
        emits an If on Shape -> Gather -> Greater, which folds once the
        batch is fixed."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            if x.size(0) > 1:
                y = torch.relu(self.fc(x))
            else:
                y = torch.zeros(x.size(0), 4) - 1.0
            return y * 2.0

    def build(name):
        import torchvision.models as tvm
        if name in ("if_dyn", "if1_dyn"):  # batch 2: then; 1: else branch
            return torch.jit.script(SizeBranch()), "vec", \
                2 if name == "if_dyn" else 1, 0
        if name == "tiny_cnn":
            return TinyCNN(), "cnn", 32, 0
        if name in ("bert_tiny", "bert_tiny_dyn"):
            return Bert(128, 64, 2, 4, 128, 16, True), "bert", 16, 128
        if name == "bert_small":
            return Bert(8000, 256, 4, 4, 1024, 128, False), "bert", 128, 8000
        if name == "vit_tiny":  # ViT-Ti/16-like: 4 layers of width 192
            from torchvision.models.vision_transformer import \
                VisionTransformer
            return VisionTransformer(224, 16, 4, 3, 192, 768), "cnn", 224, 0
        return getattr(tvm, name)(weights=None), "cnn", 224, 0

    return build


def make_inputs(kind, size, vocab):
    """Seeded inputs: an image batch of 1, or token ids and a padding mask
    whose last quarter is padding."""
    import numpy as np
    rng = np.random.default_rng(0)
    if kind == "vec":
        return {"x": rng.standard_normal((size, 8)).astype(np.float32)}
    if kind == "cnn":
        return {"input": rng.standard_normal((1, 3, size, size))
                .astype(np.float32)}
    ids = rng.integers(0, vocab, (1, size)).astype(np.int64)
    mask = np.ones((1, size), np.int64)
    mask[:, size - size // 4:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def default_opset(path):
    """The default-domain opset a model file imports."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    return next((o.version for o in m.opset_import
                 if o.domain in ("", "ai.onnx")), None)


def export_worker(cache, models, opsets):
    """Exports every (model, opset) not in cache yet: NAME_opN.onnx, the
    inputs NAME_opN.in.NAME.npy, torch's output NAME_opN.torch.npy and
    NAME_opN.json (exporter, versions, input files)."""
    import warnings
    import numpy as np
    import torch
    warnings.simplefilter("ignore")  # the TorchScript exporter's notice
    build = torch_modules()
    os.makedirs(cache, exist_ok=True)
    for name in models:
        for op in opsets:
            stem = os.path.join(cache, "%s_op%d" % (name, op))
            if os.path.exists(stem + ".json") or \
                    os.path.exists(stem + ".failed.json"):
                continue
            torch.manual_seed(0)
            model, kind, size, vocab = build(name)
            for m in model.modules():  # BN statistics away from identity
                if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                    m.running_mean.uniform_(-0.5, 0.5)
                    m.running_var.uniform_(0.5, 1.5)
                # torchvision's ViT starts its head and class token at
                # zero: an all-zero output would match anything
                if name == "vit_tiny" and isinstance(m, torch.nn.Linear):
                    torch.nn.init.normal_(m.weight, std=0.05)
            if name == "vit_tiny":
                torch.nn.init.normal_(model.class_token, std=0.5)
            model.eval()
            feeds = make_inputs(kind, size, vocab)
            args = tuple(torch.from_numpy(v) for v in feeds.values())
            with torch.no_grad():
                ref = model(*args).numpy()
            meta = {"model": name, "opset": op, "torch": torch.__version__,
                    "inputs": {}}
            # *_dyn: batch and sequence symbolic, as exports for serving
            # are; tvmc then takes the sizes from --input-shape
            dyn = {}
            if name.endswith("_dyn"):
                meta["dynamic"] = True
                dyn = {k: {0: "batch", 1: "seq"} if kind == "bert" else
                       {0: "batch"} for k in feeds}
            tries = [("dynamo", True), ("torchscript", False)]
            if op < 18:
                tries.reverse()
            why = []
            for label, dyn_exp in tries:
                try:
                    kw = {"dynamo": dyn_exp}
                    if dyn_exp:
                        kw.update(external_data=False, verbose=False)
                        if dyn:
                            d = {0: torch.export.Dim("batch"),
                                 1: torch.export.Dim("seq", max=size)}
                            kw["dynamic_shapes"] = {
                                k: {i: d[i] for i in dyn[k]} for k in feeds}
                    elif dyn:
                        kw["dynamic_axes"] = dyn
                    torch.onnx.export(model, args, stem + ".onnx",
                                      input_names=list(feeds),
                                      output_names=["output"],
                                      opset_version=op, **kw)
                    got = default_opset(stem + ".onnx")
                    if got != op:  # dynamo keeps 18 when it cannot convert
                        os.remove(stem + ".onnx")
                        raise RuntimeError("it wrote opset %s, not %d"
                                           % (got, op))
                    meta["exporter"] = label
                    break
                except Exception as e:  # noqa: BLE001 (reported, retried)
                    msg = str(e).splitlines()[0] if str(e) else \
                        type(e).__name__
                    why.append("%s: %s" % (label, re.sub(r"\x1b\[[0-9;]*m",
                                                         "", msg)))
            if "exporter" not in meta:
                print("export %s opset %d failed: %s" % (name, op,
                                                         "; ".join(why)))
                with open(stem + ".failed.json", "w") as f:
                    json.dump({"why": why}, f, indent=1)
                continue
            if why:
                meta["fallback"] = "; ".join(why)
            for k, v in feeds.items():
                np.save("%s.in.%s.npy" % (stem, k), v)
                meta["inputs"][k] = "%s.in.%s.npy" % (stem, k)
            np.save(stem + ".torch.npy", ref)
            with open(stem + ".json", "w") as f:
                json.dump(meta, f, indent=1)
            print("exported %s opset %d (%s)" % (name, op, meta["exporter"]),
                  flush=True)


# ---- the driver ---------------------------------------------------------------

def torch_python_status(py):
    r = subprocess.run([py, "-c", "import torch, torchvision; "
                        "print(torch.__version__)"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    return r.stdout.strip(), None


def rel_err(a, b):
    import numpy as np
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(1e-30, float(np.max(np.abs(b)))))


def write_fixtures(cache, models, opsets, dest):
    """Copies the exported files of models into dest, the JSON's paths
    made relative."""
    os.makedirs(dest, exist_ok=True)
    for name in models:
        for op in opsets:
            stem = "%s_op%d" % (name, op)
            with open(os.path.join(cache, stem + ".json")) as f:
                meta = json.load(f)
            for k, p in meta["inputs"].items():
                shutil.copy(p, dest)
                meta["inputs"][k] = os.path.basename(p)
            for ext in (".onnx", ".torch.npy"):
                shutil.copy(os.path.join(cache, stem + ext), dest)
            with open(os.path.join(dest, stem + ".json"), "w") as f:
                json.dump(meta, f, indent=1)
                f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torch-python", default=os.environ.get(
        "TVM_TORCH_PYTHON", sys.executable))
    ap.add_argument("--cache", default=os.environ.get(
        "TVM_TORCH_MODELS", os.path.expanduser("~/.cache/tvm-c/"
                                               "torch-models")))
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--models", default=None)
    ap.add_argument("--opsets", default=",".join(map(str, OPSETS)))
    ap.add_argument("--threads", default="1")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-fixtures", default=None)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)  # tvmc runs in other directories
    a.cache = os.path.abspath(a.cache)
    models = (a.models.split(",") if a.models else
              list(SMALL if a.check else ALL))
    opsets = [int(o) for o in a.opsets.split(",")]

    # every file already in the cache (or committed, as the small models'
    # are in tests/e2e/onnx/torch): no export, so no torch needed
    have = all(os.path.exists(os.path.join(a.cache, "%s_op%d%s" % (m, o, x)))
               for m in models for o in opsets for x in (".json", ".onnx"))
    tv, why = (None, None) if have else torch_python_status(a.torch_python)
    if not have and tv is None:
        print("torch models: skipped: torch/torchvision cannot be imported "
              "by %s (%s); pip install torch torchvision onnxscript into it "
              "or point --torch-python / $TVM_TORCH_PYTHON at one that has "
              "them" % (a.torch_python, why))
        return 77
    r = subprocess.run([a.torch_python, os.path.abspath(__file__),
                        "--export-worker", a.cache, ",".join(models),
                        ",".join(map(str, opsets))]) if not have else None
    if r and r.returncode:
        print("torch models: the export failed (exit %d)" % r.returncode)
        return 1
    if a.write_fixtures:
        write_fixtures(a.cache, models, opsets, a.write_fixtures)
        return 0
    import numpy as np

    header = peers.machine_header(a.build)
    ort_ver, ort_why = peers.peer_status()["ort"]
    if ort_ver is None:
        print("torch models: ONNX Runtime cannot be imported (%s)" % ort_why)
        return 77 if a.check else 1
    tmp = tempfile.mkdtemp(prefix="torch_models_")
    per_round = max(1, -(-a.runs // a.rounds))
    rows, fails = [], 0
    for name in models:
        for op in opsets:
            stem = os.path.join(a.cache, "%s_op%d" % (name, op))
            if not os.path.exists(stem + ".json"):
                # the exporter could not write this opset: torch's limit,
                # not the compiler's (a failure only when nothing says why)
                why = "no file"
                if os.path.exists(stem + ".failed.json"):
                    with open(stem + ".failed.json") as f:
                        why = "; ".join(json.load(f)["why"])
                else:
                    fails += 1
                rows.append({"model": name, "opset": op, "exporter": "-",
                             "status": "not exportable: " + why})
                continue
            with open(stem + ".json") as f:
                meta = json.load(f)
            # committed fixtures name their inputs relative to their folder
            meta["inputs"] = {k: os.path.join(a.cache, v)
                              for k, v in meta["inputs"].items()}
            feeds = os.path.join(tmp, "%s_op%d.json" % (name, op))
            with open(feeds, "w") as f:
                json.dump(meta["inputs"], f)
            ref = np.load(stem + ".torch.npy")
            for t in (int(s) for s in a.threads.split(",")):
                row = {"model": name, "opset": op, "threads": t,
                       "exporter": meta["exporter"] +
                       (" (fallback)" if meta.get("fallback") else "")}
                rows.append(row)
                try:
                    shapes = []
                    for k, p in (meta["inputs"].items()
                                 if meta.get("dynamic") else ()):
                        shapes += ["--input-shape", "%s=%s" % (k, "x".join(
                            str(d) for d in np.load(p).shape))]
                    ours = peers.TvmC(a.build, stem + ".onnx", t, None, feeds,
                                      tmp, None, shapes)
                except RuntimeError as e:
                    row["status"] = "tvm-c: " + str(e).splitlines()[-1]
                    print("%s opset %d: %s" % (name, op, e), flush=True)
                    fails += 1
                    continue
                try:
                    ort = peers.Worker("ort", stem + ".onnx", t, feeds, {})
                except RuntimeError as e:  # nothing to compare with
                    row["status"] = "ONNX Runtime: %s" % e
                    fails += 1
                    continue
                fws = {"tvm-c": ours, "ort": ort}
                times = {k: [] for k in fws}
                if not a.check:
                    for _ in range(a.rounds):
                        for k, fw in fws.items():
                            time.sleep(0.2)
                            times[k] += fw.ask("time %d" % per_round)
                outs = {}
                for k, fw in fws.items():
                    p = os.path.join(tmp, "%s_op%d_%s.npy" % (name, op, k))
                    fw.ask("out " + p)
                    outs[k] = np.load(p)
                    fw.close()
                row["err_ort"] = rel_err(outs["tvm-c"], outs["ort"])
                row["err_torch"] = rel_err(outs["tvm-c"], ref)
                row["ort_torch"] = rel_err(outs["ort"], ref)
                row["compile_s"] = ours.info["compile_s"]
                ok = row["err_ort"] <= TOL
                row["status"] = "matches" if ok else "MISMATCH"
                fails += not ok
                if times["tvm-c"]:
                    row["ours_ms"] = statistics.median(times["tvm-c"])
                    row["ort_ms"] = statistics.median(times["ort"])
                print("%s opset %d %dt: %s (vs ORT %.1e, vs torch %.1e)%s"
                      % (name, op, t, row["status"], row["err_ort"],
                         row["err_torch"],
                         " %.3g ms vs %.3g ms" % (row["ours_ms"],
                                                  row["ort_ms"])
                         if "ours_ms" in row else ""), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    if a.check:
        print("torch models: %d of %d match ONNX Runtime"
              % (len(rows) - fails, len(rows)))
        return 1 if fails else 0
    lines = ["machine: " + header,
             "command: python3 bench/peers/torch_models.py " +
             " ".join(sys.argv[1:]),
             "date: " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "torch %s; ONNX Runtime %s; medians over %d runs each (%d "
             "interleaved rounds of %d, after 3 warm-up runs)"
             % (tv, ort_ver, per_round * a.rounds, a.rounds, per_round),
             "match: max|tvm-c - ORT| <= %g * max|ORT|; diffs below are "
             "max|a - b| / max|b|" % TOL]
    table = ["| model | opset | exporter | threads | result | tvm-c ms | "
             "ORT ms | tvm-c/ORT | diff vs ORT | diff vs torch | "
             "tvm-c compile s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda r, k, fmt: (fmt % r[k]) if k in r else "-"
    for r in rows:
        ratio = ("%.2fx" % (r["ours_ms"] / r["ort_ms"])
                 if "ours_ms" in r else "-")
        table.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | "
                     "%s |" % (r["model"], r["opset"], r["exporter"],
                               f(r, "threads", "%d"), r["status"],
                               f(r, "ours_ms", "%.3g"), f(r, "ort_ms", "%.3g"),
                               ratio, f(r, "err_ort", "%.1e"),
                               f(r, "err_torch", "%.1e"),
                               f(r, "compile_s", "%.2f")))
    report = "\n".join("    " + l for l in lines) + "\n\n" + \
        "\n".join(table) + "\n"
    print(report)
    if a.write_results:
        peers.write_results_block("torch-models", "Models exported by "
                                  "torch.onnx.export, against ONNX Runtime",
                                  report)
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--export-worker":
        export_worker(sys.argv[2], sys.argv[3].split(","),
                      [int(o) for o in sys.argv[4].split(",")])
    else:
        sys.exit(main())
