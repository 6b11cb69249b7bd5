#!/usr/bin/env python3
"""Generate linalg-on-tensors test inputs through a third-party frontend.

The models are written here with `onnx.helper` (an MLP and a transformer
encoder block, BERT-style: multi-head attention, residuals, LayerNorm, GELU
FFN) and imported by IREE's ONNX importer, `iree-import-onnx` (torch-mlir's
ONNX frontend), then lowered to linalg on tensors by `iree-opt` with
torch-mlir's torch-to-linalg pipeline. Nothing in the IR is written by hand;
the script only strips what MLIR 22 upstream cannot parse (see `clean`).

Weights are ONNX graph *inputs* rather than initializers, so they become
function arguments (what `nvfp4-recipe` expects for weights) instead of large
dense constants; this keeps the files small.

Not run by CI (it needs network-installed packages):

    pip install iree-base-compiler onnx
    python3 utils/third-party/gen_onnx_models.py test/ThirdParty/Inputs

Licences: IREE (and the torch-mlir code inside it) is Apache-2.0 with LLVM
exceptions; ONNX is Apache-2.0. The models themselves are generated here.
"""

import os
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_to_linalg import onnx_to_linalg  # noqa: E402

F = TensorProto.FLOAT


def const(name, vals, dtype=TensorProto.INT64):
    return helper.make_node(
        "Constant", [], [name],
        value=helper.make_tensor(name + "_v", dtype, [len(vals)], vals))


def scalar(name, val):
    return helper.make_node(
        "Constant", [], [name],
        value=helper.make_tensor(name + "_v", F, [], [val]))


def mlp(tokens=128, hidden=256, ffn=1024):
    """x[T,H] -> Linear(H,F) -> GELU -> Linear(F,H)."""
    inputs = [
        helper.make_tensor_value_info("x", F, [tokens, hidden]),
        helper.make_tensor_value_info("w1", F, [hidden, ffn]),
        helper.make_tensor_value_info("b1", F, [ffn]),
        helper.make_tensor_value_info("w2", F, [ffn, hidden]),
        helper.make_tensor_value_info("b2", F, [hidden]),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Gelu", ["h1"], ["h2"]),
        helper.make_node("MatMul", ["h2", "w2"], ["y0"]),
        helper.make_node("Add", ["y0", "b2"], ["y"]),
    ]
    out = [helper.make_tensor_value_info("y", F, [tokens, hidden])]
    g = helper.make_graph(nodes, "mlp", inputs, out)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])


def encoder(tokens=128, hidden=256, heads=4, ffn=1024):
    """One post-LN transformer encoder block (BERT layout), tokens x hidden."""
    d = hidden // heads
    inputs = [helper.make_tensor_value_info("x", F, [tokens, hidden])]
    for n, shape in [("wq", [hidden, hidden]), ("wk", [hidden, hidden]),
                     ("wv", [hidden, hidden]), ("wo", [hidden, hidden]),
                     ("w1", [hidden, ffn]), ("w2", [ffn, hidden]),
                     ("ln1_g", [hidden]), ("ln1_b", [hidden]),
                     ("ln2_g", [hidden]), ("ln2_b", [hidden])]:
        inputs.append(helper.make_tensor_value_info(n, F, shape))
    nodes = [
        const("split_heads", [tokens, heads, d]),
        const("merge_heads", [tokens, hidden]),
        scalar("scale", 1.0 / (d ** 0.5)),
    ]
    for p in "qkv":
        nodes += [
            helper.make_node("MatMul", ["x", "w" + p], [p + "_proj"]),
            helper.make_node("Reshape", [p + "_proj", "split_heads"],
                             [p + "_split"]),
            # q, v: [heads, tokens, d]; k: [heads, d, tokens]
            helper.make_node("Transpose", [p + "_split"], [p + "_h"],
                             perm=[1, 2, 0] if p == "k" else [1, 0, 2]),
        ]
    nodes += [
        helper.make_node("MatMul", ["q_h", "k_h"], ["scores0"]),
        helper.make_node("Mul", ["scores0", "scale"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v_h"], ["ctx_h"]),
        helper.make_node("Transpose", ["ctx_h"], ["ctx_t"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["ctx_t", "merge_heads"], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "wo"], ["attn"]),
        helper.make_node("Add", ["x", "attn"], ["res1"]),
        helper.make_node("LayerNormalization", ["res1", "ln1_g", "ln1_b"],
                         ["h1"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["h1", "w1"], ["f0"]),
        helper.make_node("Gelu", ["f0"], ["f1"]),
        helper.make_node("MatMul", ["f1", "w2"], ["f2"]),
        helper.make_node("Add", ["h1", "f2"], ["res2"]),
        helper.make_node("LayerNormalization", ["res2", "ln2_g", "ln2_b"],
                         ["y"], axis=-1, epsilon=1e-5),
    ]
    out = [helper.make_tensor_value_info("y", F, [tokens, hidden])]
    g = helper.make_graph(nodes, "encoder", inputs, out)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, model in [("onnx-mlp", mlp()), ("onnx-encoder", encoder())]:
            onnx.checker.check_model(model, full_check=True)
            src = os.path.join(tmp, name + ".onnx")
            onnx.save(model, src)
            out = onnx_to_linalg(src, os.path.join(tmp, name + ".torch.mlir"))
            header = (f"// Generated by utils/third-party/gen_onnx_models.py "
                      f"({name}: onnx.helper model, iree-import-onnx, "
                      f"iree-opt torch-to-linalg);\n// do not edit.\n")
            with open(os.path.join(outdir, name + ".mlir"), "w") as f:
                f.write(header + out)
            print("wrote", os.path.join(outdir, name + ".mlir"))


if __name__ == "__main__":
    main()
