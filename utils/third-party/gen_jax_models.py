#!/usr/bin/env python3
"""Generate linalg-on-tensors test inputs from models written in JAX.

The models are plain `jax.numpy` functions (no Flax): an MLP, a pre-LN
transformer encoder block with a batch dimension, and training steps of both
(loss and gradients by `jax.value_and_grad`, so the backward GEMMs are JAX's
own); the MLP and its training step also with the token count a run-time
size (`jax.export.symbolic_shape`). Each is traced
and exported with `jax.export` to StableHLO, then lowered to linalg on tensors
by IREE's StableHLO input conversion:

    iree-compile --iree-input-type=stablehlo --compile-to=input

which stops after input conversion and prints `util.func` functions whose
bodies are plain linalg, tensor, arith and math ops. Nothing in the IR is
written by hand; the script post-processes the text only as `to_func`
describes (rename `util.func`/`util.return`, drop the module wrapper, name
the function after the model) and refuses output that still contains other
IREE ops.

Weights are function arguments (JAX traces them as inputs), so the files
hold no large constants.

Not run by CI (the tests consume the committed .mlir files):

    pip install jax iree-base-compiler     # CPU-only jaxlib from PyPI
    python3 utils/third-party/gen_jax_models.py test/ThirdParty/Inputs

Tested with jax 0.10.2, jaxlib 0.10.2, iree-base-compiler 3.13.0.

Licences: JAX and IREE are Apache-2.0 (IREE with LLVM exceptions). The
models themselves are written here.
"""

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys

import jax
import jax.numpy as jnp

F32 = jnp.float32
S = jax.ShapeDtypeStruct

# Sizes shared by the models: tokens per sequence, hidden, heads, FFN.
T, H, HEADS, FFN = 128, 256, 4, 1024


def gelu(x):
    # JAX's default GELU: the tanh approximation.
    return jax.nn.gelu(x)


def layernorm(x, g, b, eps=1e-5):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean(jnp.square(x - m), axis=-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + eps) * g + b


def mlp(x, w1, b1, w2, b2):
    """x[T, H] -> Linear(H, FFN) -> GELU -> Linear(FFN, H)."""
    return gelu(x @ w1 + b1) @ w2 + b2


MLP_ARGS = [S((T, H), F32), S((H, FFN), F32), S((FFN,), F32),
            S((FFN, H), F32), S((H,), F32)]


def encoder(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, w2):
    """One pre-LN encoder block on x[batch, T, H], attention laid out as in
    Flax (`...qhd,...khd->...hqk`)."""
    d = H // HEADS

    def heads(t):
        return t.reshape(*t.shape[:-1], HEADS, d)

    h = layernorm(x, ln1_g, ln1_b)
    q, k, v = heads(h @ wq), heads(h @ wk), heads(h @ wv)
    q = q / jnp.sqrt(jnp.asarray(d, F32))
    scores = jnp.einsum("...qhd,...khd->...hqk", q, k)
    probs = jax.nn.softmax(scores, axis=-1)
    ctx = jnp.einsum("...hqk,...khd->...qhd", probs, v)
    x = x + ctx.reshape(*x.shape) @ wo
    return x + gelu(layernorm(x, ln2_g, ln2_b) @ w1) @ w2


ENCODER_ARGS = ([S((2, T, H), F32), S((H,), F32), S((H,), F32)]
                + [S((H, H), F32)] * 4
                + [S((H,), F32), S((H,), F32), S((H, FFN), F32),
                   S((FFN, H), F32)])


def mlp_train_step(w1, b1, w2, b2, x, y):
    """Loss and gradients of the MLP under mean squared error: the forward
    GEMMs, and the dgrad and wgrad GEMMs JAX's autodiff derives from them."""

    def loss(params):
        return jnp.mean(jnp.square(mlp(x, *params) - y))

    value, grads = jax.value_and_grad(loss)((w1, b1, w2, b2))
    return (value, *grads)


MLP_TRAIN_ARGS = [S((H, FFN), F32), S((FFN,), F32), S((FFN, H), F32),
                  S((H,), F32), S((T, H), F32), S((T, H), F32)]

def encoder_train_step(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, w2,
                       y):
    """Loss and gradients of the encoder block under mean squared error:
    with the batch dimension, JAX contracts the weight gradients over batch
    and tokens together (IREE flattens them with tensor.collapse_shape)."""

    def loss(params):
        return jnp.mean(jnp.square(encoder(x, *params) - y))

    value, grads = jax.value_and_grad(loss)(
        (ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, w2))
    return (value, *grads)


ENCODER_TRAIN_ARGS = ENCODER_ARGS + [ENCODER_ARGS[0]]

# The token count as a run-time size (`jax.export.symbolic_shape`): the
# exported StableHLO, and so the linalg, has `?` where the tokens are.
(TOKENS,) = jax.export.symbolic_shape("tokens")
MLP_DYNAMIC_ARGS = [S((TOKENS, H), F32)] + MLP_ARGS[1:]
MLP_TRAIN_DYNAMIC_ARGS = MLP_TRAIN_ARGS[:4] + [S((TOKENS, H), F32)] * 2

MODELS = [
    ("jax-mlp", mlp, MLP_ARGS),
    ("jax-encoder", encoder, ENCODER_ARGS),
    ("jax-mlp-train", mlp_train_step, MLP_TRAIN_ARGS),
    ("jax-encoder-train", encoder_train_step, ENCODER_TRAIN_ARGS),
    ("jax-mlp-dynamic", mlp, MLP_DYNAMIC_ARGS),
    ("jax-mlp-train-dynamic", mlp_train_step, MLP_TRAIN_DYNAMIC_ARGS),
]


def tool(name):
    path = shutil.which(name)
    if not path:
        sys.exit(f"{name} not found: pip install jax iree-base-compiler")
    return path


def to_func(text, name):
    """Turn the output of IREE's input phase into plain upstream MLIR.

    - `util.func` / `util.return` (IREE's function ops, with the same
      signature and body) become `func.func` / `func.return`;
    - the `module @jit_<name> { ... }` wrapper is dropped, so the functions
      are top-level and a test can append a driver to the file;
    - the exported entry point `@main` is renamed after the model.

    Anything else of IREE's (another `util.` op, an `iree_`/`flow.`/`hal.`
    op or attribute) is an error: the result must parse with stock MLIR."""
    lines = text.rstrip("\n").split("\n")
    if not (re.match(r"module( @\w+)? \{$", lines[0]) and lines[-1] == "}"):
        sys.exit(f"{name}: unexpected module layout")
    body = [l[2:] if l.startswith("  ") else l for l in lines[1:-1]]
    out = "\n".join(body) + "\n"
    out = re.sub(r"\butil\.func public @main\(", f"func.func @{name}(", out)
    out = re.sub(r"\butil\.return\b", "func.return", out)
    left = re.findall(r"\b(util\.\w+|iree_\w+\.\w+|flow\.\w+|hal\.\w+)", out)
    if left:
        sys.exit(f"{name}: IREE ops or attributes left: {sorted(set(left))}")
    return out


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    versions = (f"jax {jax.__version__}, "
                f"jaxlib {importlib.metadata.version('jaxlib')}, "
                f"iree-base-compiler "
                f"{importlib.metadata.version('iree-base-compiler')}")
    for file_name, fn, args in MODELS:
        stablehlo = jax.export.export(jax.jit(fn))(*args).mlir_module()
        linalg = subprocess.run(
            [tool("iree-compile"), "--iree-input-type=stablehlo",
             "--compile-to=input", "-", "-o", "-"],
            input=stablehlo, check=True, capture_output=True,
            text=True).stdout
        header = (
            f"// Generated by utils/third-party/gen_jax_models.py "
            f"({file_name}: jax.export StableHLO,\n"
            f"// iree-compile --iree-input-type=stablehlo --compile-to=input; "
            f"{versions});\n"
            f"// do not edit. Regenerate: python3 "
            f"utils/third-party/gen_jax_models.py test/ThirdParty/Inputs\n")
        path = os.path.join(outdir, file_name + ".mlir")
        with open(path, "w") as f:
            f.write(header + to_func(linalg, fn.__name__))
        print("wrote", path)


if __name__ == "__main__":
    main()
