#!/usr/bin/env python3
"""tests/e2e/onnx/control/make_models.py - writes the small ONNX models of
tests/e2e/onnx/test_onnx_control.sh (committed; rerun to regenerate, needs
the onnx package):
  if_runtime.onnx  an If whose condition (ReduceSum(x) > 0) is known only
                   at run time: refused, naming the chain;
  if_shape.onnx    an If on Shape(x)[0] > 1 with a symbolic batch: inlined
                   once --input-shape fixes the batch (then: x * 2,
                   else: x - 1, an outer value used directly as the else
                   branch's input);
  loop.onnx        a Loop with a constant trip count: refused."""
import os
import onnx
from onnx import TensorProto as T, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))


def branch(name, node, out):
    return h.make_graph([node], name, [],
                        [h.make_tensor_value_info(out, T.FLOAT, None)])


def save(g, name):
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)],
                     producer_name="make_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, name))


then_b = branch("then", h.make_node("Mul", ["x", "c2"], ["t"]), "t")
else_b = branch("else", h.make_node("Sub", ["x", "c1"], ["e"]), "e")
ifn = h.make_node("If", ["cond"], ["y"], name="if",
                  then_branch=then_b, else_branch=else_b)

g = h.make_graph(
    [h.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
     h.make_node("Greater", ["s", "zero"], ["cond"], name="gt"), ifn],
    "if_runtime", [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 3])],
    [h.make_tensor("c2", T.FLOAT, [], [2.0]),
     h.make_tensor("c1", T.FLOAT, [], [1.0]),
     h.make_tensor("zero", T.FLOAT, [], [0.0])])
save(g, "if_runtime.onnx")

g = h.make_graph(
    [h.make_node("Shape", ["x"], ["shp"], name="shape"),
     h.make_node("Gather", ["shp", "i0"], ["n"], name="gather", axis=0),
     h.make_node("Greater", ["n", "i1"], ["cond"], name="gt"), ifn],
    "if_shape", [h.make_tensor_value_info("x", T.FLOAT, ["N", 3])],
    [h.make_tensor_value_info("y", T.FLOAT, ["N", 3])],
    [h.make_tensor("c2", T.FLOAT, [], [2.0]),
     h.make_tensor("c1", T.FLOAT, [], [1.0]),
     h.make_tensor("i0", T.INT64, [], [0]),
     h.make_tensor("i1", T.INT64, [], [1])])
save(g, "if_shape.onnx")

body = h.make_graph(
    [h.make_node("Identity", ["cin"], ["cout"]),
     h.make_node("Add", ["acc", "x"], ["acc2"])], "body",
    [h.make_tensor_value_info("i", T.INT64, []),
     h.make_tensor_value_info("cin", T.BOOL, []),
     h.make_tensor_value_info("acc", T.FLOAT, [3])],
    [h.make_tensor_value_info("cout", T.BOOL, []),
     h.make_tensor_value_info("acc2", T.FLOAT, [3])])
g = h.make_graph(
    [h.make_node("Loop", ["trip", "true", "x"], ["y"], name="loop",
                 body=body)],
    "loop", [h.make_tensor_value_info("x", T.FLOAT, [3])],
    [h.make_tensor_value_info("y", T.FLOAT, [3])],
    [h.make_tensor("trip", T.INT64, [], [4]),
     h.make_tensor("true", T.BOOL, [], [True])])
save(g, "loop.onnx")
