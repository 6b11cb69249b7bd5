#!/usr/bin/env python3
"""Generate IREE input-phase test inputs from PyTorch training steps:
forward and backward in one graph, exported with `torch.export`.

The route (docs/frontends.md, "A PyTorch training step"):

    ep = torch.export.export(step, (x, target), dynamic_shapes=...)
    joint = torch.export.experimental._export_forward_backward(
        ep.run_decompositions())
    FxImporter().import_stateless_graph(joint.graph_module.graph)
    iree-compile step.torch.mlir --iree-input-type=torch --compile-to=input \
        --mlir-print-op-generic

`step` is a module whose forward returns the loss.
`_export_forward_backward` (the joint export ExecuTorch trains with) traces
AOTAutograd's joint graph: its inputs are the parameters, then the user
inputs; its outputs are the loss, then each parameter's gradient, in the
parameters' order. The graph is functional, so it is imported as a
stateless function (`import_stateless_graph`, the FX importer IREE ships):
the parameters become function arguments, which is what the recipe expects
of weights in a training step. IREE's input phase lowers the torch dialect
to linalg; `nvfp4-import-iree-input` turns the entry into a func.func.

- torch-mlp-train-dynamic-iree-input: the training step of
  `nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64),
  nn.GELU(), nn.Linear(64, 32))` (exact GELU) under a mean-squared-error
  loss, on x[tokens, 32] and target[tokens, 32], tokens dynamic
  (`torch.export.Dim`).
- torch-mlp-train-static-iree-input: its static twin, exported on 32
  tokens.
- torch-mlp-train-values: the parameters, then for each of RUN_TOKENS the
  inputs x and target and PyTorch's loss and gradients (`loss.backward()`
  in f32), as functions returning constants, for the tests that run the
  exports.

Nothing in the IR is written by hand. Not run by CI (the tests consume the
committed .mlir files):

    pip install torch iree-base-compiler
    python3 utils/third-party/gen_torch_training_models.py test/ThirdParty/Inputs

Tested with torch 2.15.0, iree-base-compiler 3.13.0.
"""
import importlib.metadata
import os
import subprocess
import sys
import tempfile

import torch
from torch import nn
from torch.export.experimental import _export_forward_backward

from gen_iree_input import tool, write_generated

# The token counts the tests run; the first is the static twin's.
RUN_TOKENS = [32, 48]


def constant_func(name, array):
    """A func.func @name returning `array` (f32) as a dense constant, its
    bytes in hex (exact and compact)."""
    ty = "tensor<" + "x".join(map(str, array.shape)) + "xf32>"
    data = array.astype("<f4").tobytes().hex().upper()
    return (f"func.func @{name}() -> {ty} {{\n"
            f"  %0 = arith.constant dense<\"0x{data}\"> : {ty}\n"
            f"  return %0 : {ty}\n}}\n")


class MSETrainingStep(nn.Module):
    """The loss of `net` on (x, target): a training step's forward."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, target):
        return nn.functional.mse_loss(self.net(x), target)


def mlp():
    torch.manual_seed(2026)
    net = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 64),
                        nn.GELU(), nn.Linear(64, 32))
    return MSETrainingStep(net)


MODELS = [("torch-mlp-train", mlp)]


def joint_program(step, tokens, dynamic):
    """The joint forward-backward ExportedProgram of `step` on `tokens`
    tokens, the token count dynamic with `dynamic`."""
    x, target = torch.randn(tokens, 32), torch.randn(tokens, 32)
    kwargs = {}
    if dynamic:
        dim = torch.export.Dim("tokens")
        kwargs["dynamic_shapes"] = ({0: dim}, {0: dim})
    ep = torch.export.export(step, (x, target), **kwargs)
    return _export_forward_backward(ep.run_decompositions())


def iree_input(step, tokens, dynamic):
    """IREE's input phase of the joint step, printed generic."""
    from iree.compiler import ir
    from iree.compiler.extras.fx_importer import FxImporter
    joint = joint_program(step, tokens, dynamic)
    importer = FxImporter(context=ir.Context())
    importer.import_stateless_graph(joint.graph_module.graph,
                                    func_name="train_step")
    with tempfile.TemporaryDirectory() as work:
        torch_path = os.path.join(work, "step.torch.mlir")
        with open(torch_path, "w") as f:
            f.write(str(importer.module))
        return subprocess.run(
            [tool("iree-compile"), torch_path, "--iree-input-type=torch",
             "--compile-to=input", "--mlir-print-op-generic"],
            check=True, capture_output=True, text=True).stdout


def values(step):
    """The parameters, then x, target, the loss and the gradients on each
    of RUN_TOKENS, as constant funcs named after the joint graph's inputs
    and outputs."""
    params = list(step.named_parameters())
    funcs = [constant_func("p_" + name.replace(".", "_"),
                           p.detach().numpy()) for name, p in params]
    torch.manual_seed(7)
    for tokens in RUN_TOKENS:
        x, target = torch.randn(tokens, 32), torch.randn(tokens, 32)
        step.zero_grad()
        loss = step(x, target)
        loss.backward()
        funcs += [constant_func(f"x_{tokens}", x.numpy()),
                  constant_func(f"target_{tokens}", target.numpy()),
                  constant_func(f"loss_{tokens}",
                                loss.detach().reshape(1).numpy())]
        funcs += [constant_func(f"grad_{name.replace('.', '_')}_{tokens}",
                                p.grad.numpy()) for name, p in params]
    return "\n".join(funcs)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_torch_training_models.py OUTDIR")
    versions = (f"torch {torch.__version__}, iree-base-compiler "
                f"{importlib.metadata.version('iree-base-compiler')}")
    route = ("torch.export.export, _export_forward_backward, FxImporter"
             ".import_stateless_graph,\n// iree-compile --iree-input-type="
             "torch --compile-to=input; " + versions)
    for model, make in MODELS:
        step = make()
        outputs = [
            ("-dynamic-iree-input", "tokens dynamic; " + route,
             lambda: iree_input(step, RUN_TOKENS[0], True)),
            ("-static-iree-input", f"{RUN_TOKENS[0]} tokens; " + route,
             lambda: iree_input(step, RUN_TOKENS[0], False)),
            ("-values", "the parameters; x and target from "
             "torch.manual_seed(7) and PyTorch's loss and gradients on "
             + " and ".join(map(str, RUN_TOKENS)) + " tokens;\n// "
             f"torch {torch.__version__}",
             lambda: values(step)),
        ]
        write_generated(sys.argv[1], "gen_torch_training_models.py", model, outputs)


if __name__ == "__main__":
    main()
