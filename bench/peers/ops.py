#!/usr/bin/env python3
"""bench/peers/ops.py - single operators against ONNX Runtime (and Apache
TVM when installed), through bench/peers/run.py's interleaved harness.

    python3 bench/peers/ops.py [run.py options: --build --threads --runs
                                --rounds ...]

Writes one-operator ONNX files (opset 17, float32, one input) into a
temporary folder and hands them to run.py as --models: the reductions a
model's last axis feeds (ReduceSum and ReduceMean over the last axis, the
statistics opset-13 exporters write for LayerNorm; ReduceMax over the last
two), GlobalAveragePool of an NCHW map that no convolution put into
blocked layout, and Softmax over 4096-wide rows.  Needs the onnx package.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def models(tmp):
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save

    def one(name, node, shape, out_shape, inits=()):
        g = helper.make_graph(
            [node], name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                           out_shape)],
            list(inits))
        path = os.path.join(tmp, name + ".onnx")
        save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
             path)
        return path

    def axes(v):
        return numpy_helper.from_array(np.array(v, dtype=np.int64), "axes")

    return [
        one("reducesum_256x4096",
            helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1),
            [256, 4096], [256, 1], [axes([1])]),
        one("reducemean_197x768",
            helper.make_node("ReduceMean", ["x"], ["y"], axes=[-1],
                             keepdims=1),
            [197, 768], [197, 1]),
        one("reducemax_64x56x56",
            helper.make_node("ReduceMax", ["x"], ["y"], axes=[1, 2],
                             keepdims=0),
            [64, 56, 56], [64]),
        one("globalavgpool_512x56x56",
            helper.make_node("GlobalAveragePool", ["x"], ["y"]),
            [1, 512, 56, 56], [1, 512, 1, 1]),
        one("softmax_256x4096",
            helper.make_node("Softmax", ["x"], ["y"], axis=-1),
            [256, 4096], [256, 4096]),
    ]


def main():
    tmp = tempfile.mkdtemp(prefix="peer_ops_")
    try:
        files = models(tmp)
    except ImportError as e:
        print("bench/peers/ops.py: the onnx package is missing (%s): "
              "pip install onnx" % e)
        return 77
    return subprocess.call([sys.executable, os.path.join(HERE, "run.py"),
                            "--models", ",".join(files)] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
