#!/bin/sh
# tests/e2e/onnx/test_torch_export.sh - the whole path from PyTorch: the
# small models of bench/peers/torch_models.py (a torchvision-style CNN and
# a BERT-style encoder) exported now by torch.onnx.export at opsets 13, 17
# and 18, compiled by tvmc for llvm-cpu and compared with ONNX Runtime.
# Needs a python with torch, torchvision and onnxscript ($TVM_TORCH_PYTHON,
# else python3) and one with onnxruntime and numpy (python3); skipped
# (77) with the reason when either is missing.
set -u
s=${TVM_SRCDIR:?run through make check}
b=${TVM_BUILDDIR:?run through make check}
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
python3 -c 'import numpy, onnx, onnxruntime' 2>/dev/null || {
  echo "skipped: python3 cannot import numpy, onnx and onnxruntime" \
    "(pip install -r bench/peers/requirements.txt)"
  exit 77
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec python3 "$s/bench/peers/torch_models.py" --check --build "$b" \
  --cache "$tmp"
