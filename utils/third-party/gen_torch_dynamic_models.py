#!/usr/bin/env python3
"""Generate IREE input-phase test inputs from PyTorch modules exported with
dynamic batch and sequence.

The route of a PyTorch user today: `torch.onnx.export(..., dynamo=True,
dynamic_shapes=...)` (torch.export underneath), IREE's ONNX importer and
IREE's input phase:

    iree-import-onnx model.onnx -o model.torch.mlir
    iree-compile model.torch.mlir --compile-to=input --mlir-print-op-generic

with one rewrite of the ONNX graph in between (flatten_run_time_merges:
torch-mlir mislowers a reshape that merges run-time sizes).

- torch-encoder-dynamic-iree-input: `nn.TransformerEncoderLayer(d_model=32,
  nhead=4, dim_feedforward=64, dropout=0, activation="gelu",
  batch_first=True, norm_first=True)` (exact GELU, `math.erf`) on
  x[batch, seq, 32], batch and seq dynamic (`torch.export.Dim`). The
  parameters are ONNX initializers and arrive as constants.
- torch-encoder-static-iree-input: its static twin, the same module
  exported without dynamic shapes on x[2, 5, 32].
- torch-encoder-dynamic-values: inputs x of 2 x 5 and 3 x 7 tokens and
  PyTorch's outputs y on them, as functions @x_BxS and @y_BxS returning
  constants, for the tests that run the exports.

The IREE inputs keep IREE's `util.func` entry points with the
`hal.buffer_view` ABI, whose run-time sizes are read with
`hal.buffer_view.dim`; `nvfp4-import-iree-input` turns them into func.func
on tensors. Nothing in the IR is written by hand.

Not run by CI (the tests consume the committed .mlir files):

    pip install torch onnx onnxscript iree-base-compiler
    python3 utils/third-party/gen_torch_dynamic_models.py test/ThirdParty/Inputs

Tested with torch 2.15.0, onnx 1.23.2, onnxscript, iree-base-compiler
3.13.0.
"""
import importlib.metadata
import math
import os
import sys
import tempfile

import onnx
import torch
from onnx import helper, numpy_helper

from gen_iree_input import onnx_to_iree_input, write_generated


def encoder():
    torch.manual_seed(2026)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
        activation="gelu", batch_first=True, norm_first=True)
    return layer.eval(), torch.randn(2, 16, 32)


MODELS = [("torch-encoder", encoder)]

# The token shapes (batch, sequence) the tests run; the first is the static
# twin's.
RUN_SHAPES = [(2, 5), (3, 7)]


def flatten_run_time_merges(model):
    """Rewrite in place each `Reshape(x, [-1, C])` of `model`'s graph (a
    constant target) whose first result dimension takes a run-time size of
    x as the equivalent `Flatten(x, axis=k)`: k is the first axis from
    which x's sizes are all static with product C, and a size before k is
    a run-time one. Returns the number of rewritten nodes.

    The reason is torch-mlir's lowering of `aten.view`
    (convert-torch-to-linalg, ConvertAtenViewOp; the one iree-compile
    3.13.0 bundles): a view that merges two run-time sizes, here
    nn.MultiheadAttention's merge of the heads before out_proj
    ([seq, batch, 4, 8] -> [-1, 32], batch and seq at run time), becomes an
    unchecked `tensor.cast` that takes the second run-time size to be 1, so
    that with batch > 1 the output projection gets the seq rows of the
    first batch element instead of seq x batch rows (llvm/torch-mlir#4743).
    ONNX's Flatten lowers to `tensor.collapse_shape`, right for any sizes.
    The rewrite only uses the shapes the exporter records (value_info,
    inputs and outputs); a Reshape whose input shape it does not know
    stays.
    """
    graph = model.graph
    consts = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    consts[node.output[0]] = numpy_helper.to_array(attr.t)
    shapes = {}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        dims = value.type.tensor_type.shape.dim
        shapes[value.name] = [d.dim_value if d.HasField("dim_value") else None
                              for d in dims]
    rewritten = 0
    for i, node in enumerate(graph.node):
        if node.op_type != "Reshape" or node.input[1] not in consts:
            continue
        target = consts[node.input[1]].tolist()
        sizes = shapes.get(node.input[0])
        if len(target) != 2 or target[0] != -1 or not sizes:
            continue
        for k in range(1, len(sizes)):
            tail = sizes[k:]
            if None in tail or math.prod(tail) != target[1]:
                continue
            if None in sizes[:k]:
                graph.node[i].CopyFrom(helper.make_node(
                    "Flatten", [node.input[0]], list(node.output),
                    name=node.name, axis=k))
                rewritten += 1
            break
    return rewritten


def iree_input(module, example, dynamic):
    """IREE's input phase of `module` exported on `example`; with
    `dynamic`, the first two axes (batch, sequence) are dynamic and the
    graph goes through flatten_run_time_merges."""
    kwargs = {}
    if dynamic:
        batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq")
        kwargs["dynamic_shapes"] = ({0: batch, 1: seq},)
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "model.onnx")
        torch.onnx.export(module, (example,), onnx_path, dynamo=True,
                          external_data=False, **kwargs)
        if dynamic:
            model = onnx.load(onnx_path)
            print("flattened", flatten_run_time_merges(model),
                  "reshapes of run-time sizes")
            onnx.save(model, onnx_path)
        return onnx_to_iree_input(onnx_path)


def dense(array, indent):
    """`array` as a nested MLIR dense literal, one innermost row a line,
    each value exact (9 significant digits)."""
    if array.ndim == 1:
        return "[" + ", ".join(f"{v:.8e}" for v in array.tolist()) + "]"
    rows = [dense(a, indent + " ") for a in array]
    return "[" + (",\n" + indent + " ").join(rows) + "]"


def constant_func(name, array):
    """A func.func @name returning `array` (f32) as a dense constant."""
    ty = "tensor<" + "x".join(map(str, array.shape)) + "xf32>"
    return (f"func.func @{name}() -> {ty} {{\n"
            f"  %0 = arith.constant dense<\n    {dense(array, '    ')}> : "
            f"{ty}\n  return %0 : {ty}\n}}\n")


def values(module):
    """x and the module's y on each of RUN_SHAPES, as constant funcs."""
    torch.manual_seed(7)
    funcs = []
    for batch, seq in RUN_SHAPES:
        x = torch.randn(batch, seq, 32)
        with torch.no_grad():
            y = module(x)
        funcs += [constant_func(f"x_{batch}x{seq}", x.numpy()),
                  constant_func(f"y_{batch}x{seq}", y.numpy())]
    return "\n".join(funcs)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_torch_dynamic_models.py OUTDIR")
    torch_version = f"torch {torch.__version__}"
    iree_versions = (f"{torch_version}, onnx "
                     f"{importlib.metadata.version('onnx')}, "
                     "iree-base-compiler "
                     f"{importlib.metadata.version('iree-base-compiler')}")
    for model, make in MODELS:
        module, example = make()
        batch, seq = RUN_SHAPES[0]
        outputs = [
            ("-dynamic-iree-input", "torch.onnx.export(dynamo=True) with "
             "dynamic batch and sequence, flatten_run_time_merges,\n// "
             f"iree-import-onnx, iree-compile --compile-to=input; "
             f"{iree_versions}",
             lambda: iree_input(module, example, True)),
            ("-static-iree-input", f"torch.onnx.export(dynamo=True) on x"
             f"[{batch}, {seq}, 32], iree-import-onnx,\n// iree-compile "
             f"--compile-to=input; {iree_versions}",
             lambda: iree_input(module, torch.randn(batch, seq, 32), False)),
            ("-dynamic-values", "x from torch.manual_seed(7) and the "
             "module's y on it, on " + " and ".join(
                 f"{b} x {s}" for b, s in RUN_SHAPES) + " tokens;\n// "
             + torch_version,
             lambda: values(module)),
        ]
        write_generated(sys.argv[1], "gen_torch_dynamic_models.py", model, outputs)


if __name__ == "__main__":
    main()
