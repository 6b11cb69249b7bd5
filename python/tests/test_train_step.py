"""The bundled training-step generator (examples/gen_transformer_training.py)
compiled with nvfp4.compile: its gradients, loss and SGD / Adam updates
against JAX's autodiff of the same model (an independent oracle), in f32
where the two can agree to rounding; and the bf16 step, with and without
the recipe, trains (test/Integration/training-step.mlir checks the recipe
step's two CPU lowerings against each other byte for byte)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import nvfp4

pytest.importorskip("nvfp4._jit",
                    reason="nvfp4.compile needs the build-tree package")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

GENERATOR = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                         "gen_transformer_training.py")
LAYERS, TOKENS, HIDDEN, FFN, HEADS, VOCAB = 2, 32, 64, 96, 4, 48
NAMES = ["wq", "wk", "wv", "wo", "wg", "wu", "wd"]


def generate(tmp_path, *options):
    subprocess.run([sys.executable, GENERATOR, "--layers", str(LAYERS),
                    "--tokens", str(TOKENS), "--hidden", str(HIDDEN),
                    "--ffn", str(FFN), "--heads", str(HEADS), "--vocab",
                    str(VOCAB), *options, str(tmp_path)], check=True)
    stem = "transformer_training"
    for option, name in (("sgd", "transformer_train_sgd"),
                         ("adam", "transformer_train_adam")):
        if option in options:
            stem = name
    with open(tmp_path / f"{stem}.mlir") as f:
        return f.read()


def weight_shapes():
    shapes = {"wq": (HIDDEN, HIDDEN), "wk": (HIDDEN, HIDDEN),
              "wv": (HIDDEN, HIDDEN), "wo": (HIDDEN, HIDDEN),
              "wg": (FFN, HIDDEN), "wu": (FFN, HIDDEN), "wd": (HIDDEN, FFN)}
    return [(VOCAB, HIDDEN)] + [shapes[n] for _ in range(LAYERS)
                                for n in NAMES] + [(VOCAB, HIDDEN)]


def init(rng):
    weights = [(rng.standard_normal(s) / np.sqrt(s[1])).astype(np.float32)
               for s in weight_shapes()]
    ids = rng.integers(0, VOCAB, TOKENS).astype(np.int64)
    labels = rng.integers(0, VOCAB, TOKENS).astype(np.int64)
    return weights, ids, labels


def reference_loss(weights, ids, labels):
    """The model the generator documents, written with jax.numpy."""
    hd = HIDDEN // HEADS

    def rms(x):
        return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)

    def heads(x):
        return x.reshape(TOKENS, HEADS, hd).transpose(1, 0, 2)

    emb, head = weights[0], weights[-1]
    x = jax.nn.one_hot(ids, VOCAB, dtype=jnp.float32) @ emb
    causal = jnp.arange(TOKENS)[None, :] > jnp.arange(TOKENS)[:, None]
    for l in range(LAYERS):
        wq, wk, wv, wo, wg, wu, wd = weights[1 + 7 * l:8 + 7 * l]
        xn = rms(x)
        q, k, v = heads(xn @ wq.T), heads(xn @ wk.T), heads(xn @ wv.T)
        scores = jnp.where(causal, -jnp.inf,
                           q @ k.transpose(0, 2, 1) / np.sqrt(hd))
        o = jax.nn.softmax(scores, axis=-1) @ v
        x = x + o.transpose(1, 0, 2).reshape(TOKENS, HIDDEN) @ wo.T
        xn2 = rms(x)
        x = x + ((xn2 @ wg.T) * (xn2 @ wu.T)) @ wd.T
    logits = rms(x) @ head.T
    picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - picked)


def relative_error(actual, expected):
    return float(np.linalg.norm(np.asarray(actual, np.float64) - expected) /
                 max(np.linalg.norm(expected), 1e-30))


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


def test_gradients_are_autodiffs(module_tmp, rng):
    step = nvfp4.compile(generate(module_tmp, "--dtype", "f32"),
                         entry="train_step")
    weights, ids, labels = init(rng)
    grads = step(ids, labels, 0, *weights)
    expected = jax.grad(reference_loss)(weights, ids, labels)
    assert len(grads) == len(expected) == 2 + 7 * LAYERS
    for g, e in zip(grads, expected):
        assert relative_error(g, np.asarray(e)) < 1e-4


def test_sgd_step_is_loss_and_update(module_tmp, rng):
    step = nvfp4.compile(generate(module_tmp, "--dtype", "f32", "--optimizer",
                                  "sgd"), entry="train_step")
    weights, ids, labels = init(rng)
    lr = np.float32(0.25)
    loss, *updated = step(ids, labels, 0, lr, *weights)
    expected_loss, grads = jax.value_and_grad(reference_loss)(weights, ids,
                                                              labels)
    assert abs(loss - float(expected_loss)) < 1e-5 * float(expected_loss)
    for w, new, g in zip(weights, updated, grads):
        assert relative_error(w - new, lr * np.asarray(g)) < 1e-3


def test_adam_steps_follow_the_update_rule(module_tmp, rng):
    step = nvfp4.compile(generate(module_tmp, "--dtype", "f32", "--optimizer",
                                  "adam"), entry="train_step")
    weights, ids, labels = init(rng)
    n = len(weights)
    m = [np.zeros_like(w) for w in weights]
    v = [np.zeros_like(w) for w in weights]
    for t in (1, 2, 3):
        step_size = 1e-2 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        grads = jax.grad(reference_loss)(weights, ids, labels)
        out = step(ids, labels, 0, step_size, *weights, *m, *v)
        for i, g in enumerate(grads):
            g = np.asarray(g, np.float64)
            new_m = 0.9 * m[i] + 0.1 * g
            new_v = 0.999 * v[i] + 0.001 * g * g
            new_w = weights[i] - step_size * new_m / (np.sqrt(new_v) + 1e-8)
            assert relative_error(out[1 + n + i], new_m) < 1e-3
            assert relative_error(out[1 + 2 * n + i], new_v) < 1e-3
            assert relative_error(weights[i] - out[1 + i],
                                  weights[i] - new_w) < 1e-3
        weights, m, v = (list(out[1:1 + n]), list(out[1 + n:1 + 2 * n]),
                         list(out[1 + 2 * n:]))


def test_recipe_step_trains(module_tmp, rng):
    """The NVFP4 step (the recipe's quantized GEMMs) lowers the loss on a
    learnable sequence as the bf16 step does."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    source = generate(module_tmp, "--optimizer", "sgd")
    losses = {}
    for recipe in (None, "keep-first=0 keep-last=0"):
        step = nvfp4.compile(source, entry="train_step", recipe=recipe)
        weights, _, _ = init(np.random.default_rng(5))
        weights = [w.astype(ml_dtypes.bfloat16) for w in weights]
        text = (np.arange(4 * TOKENS) * 7 % VOCAB).astype(np.int64)
        history = []
        for t in range(40):
            start = (t * 5) % (3 * TOKENS)
            loss, *weights = step(text[start:start + TOKENS],
                                  text[start + 1:start + 1 + TOKENS], t,
                                  np.float32(0.5), *weights)
            history.append(float(loss))
        losses[recipe] = history
    for history in losses.values():
        assert np.all(np.isfinite(history))
        assert np.mean(history[-5:]) < 0.5 * np.mean(history[:5])
