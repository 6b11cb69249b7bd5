"""The recipe's policy from Python (nvfp4.Recipe, the C++ functions the
passes call), a linear layer's three GEMMs under it (nvfp4.linear_forward /
linear_backward), and the PyTorch and JAX front ends. Oracles: the
library's quantize / transpose / matmul called by hand with the paper's
rules written out, float64 products with quantization disabled, and the
compiler's own recipe (nvfp4.compile) for the forward GEMM."""

import warnings

import numpy as np
import pytest

import nvfp4


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


def relative_error(actual, expected):
    """Float32 arithmetic against float64: about 1e-7 when right."""
    actual = np.asarray(actual, dtype=np.float64)
    return np.linalg.norm(actual - expected) / np.linalg.norm(expected)


def operands(rng, m=48, n=32, k=64):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / 8).astype(np.float32)
    dy = (rng.standard_normal((m, n)) / 64).astype(np.float32)
    return x, w, dy


# ----------------------------------------------------------------- policy


def test_policy_is_the_papers_recipe():
    r = nvfp4.Recipe()
    q = r.quantization
    rn1 = nvfp4.OperandQuantization((1, 16), "rn", False)
    assert q("fprop", "activation") == rn1
    assert q("fprop", "weight") == nvfp4.OperandQuantization((16, 16), "rn",
                                                             False)
    assert q("dgrad", "weight") == q("fprop", "weight")
    assert q("dgrad", "gradient") == nvfp4.OperandQuantization((1, 16), "rs",
                                                               False)
    assert q("wgrad", "activation") == nvfp4.OperandQuantization((1, 16),
                                                                 "rn", True)
    assert q("wgrad", "gradient") == nvfp4.OperandQuantization((1, 16), "rs",
                                                               True)
    assert nvfp4.Recipe.operand_kinds("dgrad") == ("gradient", "weight")


@pytest.mark.parametrize("name, role, kind, expected", [
    ("no-rht", "wgrad", "gradient", ((1, 16), "rs", False)),
    ("no-sr", "dgrad", "gradient", ((1, 16), "rn", False)),
    ("1x16-weights", "fprop", "weight", ((1, 16), "rn", False)),
    ("all-fp4", "fprop", "weight", ((16, 16), "rn", False)),
])
def test_each_ablation_removes_one_rule(name, role, kind, expected):
    assert nvfp4.Recipe.ablation(name).quantization(role, kind) == \
        nvfp4.OperandQuantization(*expected)


def test_layers_kept_in_high_precision():
    r = nvfp4.Recipe(keep_first=1, keep_last=2, high_layers=[3])
    precisions = [r.layer_precision(layer, 8) for layer in range(8)]
    assert precisions == ["high-first", "fp4", "fp4", "high-listed", "fp4",
                          "fp4", "high-last", "high-last"]
    assert nvfp4.Recipe.ablation("all-fp4").is_fp4(0, 8)
    assert not nvfp4.Recipe.ablation("nvfp4").is_fp4(7, 8)
    assert not nvfp4.Recipe.ablation("bf16").is_fp4(3, 8)
    assert r.pass_options() == "keep-first=1 keep-last=2 high-layers=3"
    assert nvfp4.Recipe(hadamard=False, stochastic_rounding=False,
                        weight_blocks_2d=False).pass_options() == (
        "keep-first=0 keep-last=0 disable-rht disable-stochastic-rounding "
        "disable-2d-quantization")
    assert nvfp4.Recipe.ablation("bf16").pass_options() is None
    with pytest.raises(ValueError, match="unknown ablation"):
        nvfp4.Recipe.ablation("fp8")
    with pytest.raises(ValueError, match="role must be one of .fprop., .dgrad., .wgrad."):
        r.quantization("forward", "weight")
    with pytest.raises(ValueError, match="kind must be one of"):
        r.quantization("fprop", "bias")
    with pytest.raises(ValueError, match=r"position 8 is not in \[0, 8\)"):
        r.layer_precision(8, 8)


# -------------------------------------------------------- the three GEMMs


def by_hand(x, w, dy, seed, offset, hadamard=True, sr=True, blocks=(16, 16)):
    """The paper's rules written out with the library's functions."""
    rounding = "rs" if sr else "rn"
    qw = nvfp4.quantize(w, block=blocks)
    y = nvfp4.matmul(nvfp4.quantize(x), qw)
    qwt = nvfp4.transpose(qw) if blocks == (16, 16) else \
        nvfp4.quantize(np.ascontiguousarray(w.T), block=blocks)
    q_dy = nvfp4.quantize(dy, rounding=rounding, seed=seed, offset=offset)
    dx = nvfp4.matmul(q_dy, qwt)
    if sr:
        offset += dy.size // 16
    q_dyt = nvfp4.quantize(np.ascontiguousarray(dy.T), rounding=rounding,
                           seed=seed, offset=offset, hadamard=hadamard)
    q_xt = nvfp4.quantize(np.ascontiguousarray(x.T), hadamard=hadamard)
    dw = nvfp4.matmul(q_dyt, q_xt)
    return y, dx, dw


@pytest.mark.parametrize("arm, rules", [
    ("nvfp4", {}),
    ("no-rht", dict(hadamard=False)),
    ("no-sr", dict(sr=False)),
    ("1x16-weights", dict(blocks=(1, 16))),
])
def test_exact_gemms_are_the_library_bit_for_bit(rng, arm, rules):
    x, w, dy = operands(rng)
    recipe = nvfp4.Recipe.ablation(arm, seed=9)
    recipe.generator = nvfp4.Generator(9, 1000)
    y, ctx = nvfp4.linear_forward(x, w, recipe)
    dx, dw = nvfp4.linear_backward(dy, ctx)
    ey, edx, edw = by_hand(x, w, dy, 9, 1000, **rules)
    assert same_bits(y, ey) and same_bits(dx, edx) and same_bits(dw, edw)
    # The counters advanced past the two stochastic quantizations.
    assert recipe.generator.offset == 1000 + (2 * dy.size // 16 if
                                              rules.get("sr", True) else 0)


def test_fake_gemms_use_the_same_quantized_operands(rng):
    x, w, dy = operands(rng)
    recipe = nvfp4.Recipe(mode="fake", seed=4)
    y, ctx = nvfp4.linear_forward(x, w, recipe)
    dx, dw = nvfp4.linear_backward(dy, ctx)
    fq = nvfp4.fake_quantize
    fw = fq(w, block=(16, 16))
    assert same_bits(y, fq(x) @ fw.T)
    g = nvfp4.Generator(4)
    assert same_bits(dx, fq(dy, rounding="rs", seed=g) @ fw)
    assert same_bits(dw, fq(dy.T, rounding="rs", seed=g, hadamard=True) @
                     fq(x.T, hadamard=True).T)


def test_ragged_shapes_are_zero_padded(rng):
    x, w, dy = operands(rng, m=37, n=21, k=40)
    recipe = nvfp4.Recipe(seed=2)
    y, ctx = nvfp4.linear_forward(x, w, recipe)
    dx, dw = nvfp4.linear_backward(dy, ctx)
    assert y.shape == (37, 21) and dx.shape == (37, 40) and \
        dw.shape == (21, 40)
    pad = lambda a, r, c: np.pad(a, ((0, r - a.shape[0]), (0, c - a.shape[1])))
    ey = nvfp4.matmul(nvfp4.quantize(pad(x, 37, 48)),
                      nvfp4.quantize(pad(w, 32, 48), block=(16, 16)))
    assert same_bits(y, np.ascontiguousarray(ey[:37, :21]))
    for got, want in ((y, x @ w.T), (dx, dy @ w), (dw, dy.T @ x)):
        err = np.linalg.norm(got - want) / np.linalg.norm(want)
        assert 0.01 < err < 0.5


def test_high_precision_layers_are_float32(rng):
    x, w, dy = operands(rng)
    for recipe, fp4 in ((None, True), (nvfp4.Recipe(), False),
                        (nvfp4.Recipe.ablation("bf16"), True)):
        y, ctx = nvfp4.linear_forward(x, w, recipe, fp4)
        dx, dw = nvfp4.linear_backward(dy, ctx)
        assert same_bits(y, x @ w.T) and same_bits(dx, dy @ w) and \
            same_bits(dw, dy.T @ x)


def test_python_and_the_compiler_agree_on_the_forward_gemm(rng):
    pytest.importorskip("nvfp4._jit",
                        reason="nvfp4.compile needs the build-tree package")
    src = """
func.func @main(%x: tensor<48x64xf32>, %w: tensor<32x64xf32> {nvfp4.kind = "weight"})
    -> tensor<48x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<48x64xf32>, tensor<32x64xf32>)
      outs(%acc : tensor<48x32xf32>) -> tensor<48x32xf32>
  return %y : tensor<48x32xf32>
}
"""
    x, w, _ = operands(rng)
    for arm in ("nvfp4", "1x16-weights"):
        recipe = nvfp4.Recipe.ablation(arm, keep_first=0, keep_last=0)
        compiled = nvfp4.compile(src, recipe=recipe.pass_options())
        y, _ = nvfp4.linear_forward(x, w, recipe)
        assert same_bits(compiled(x, w), y)


def test_layer_rules_are_those_that_need_a_layer_index():
    assert nvfp4.Recipe().layer_rules == ()
    assert nvfp4.Recipe(keep_first=1, keep_last=2, high_layers=[3]) \
        .layer_rules == ("keep_first=1", "keep_last=2", "high_layers=(3,)")
    assert nvfp4.Recipe.ablation("all-fp4").layer_rules == ()
    # Disabled: every layer is high alike.
    assert nvfp4.Recipe.ablation("bf16").layer_rules == ()


def no_layer_index_warnings(action):
    """The no-layer-index warnings `action` raises, each one counted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [w for w in caught if "no layer index" in str(w.message)]


def check_no_layer_index_warning(found, caller):
    """One UserWarning of `caller`, naming the rules and the fix, raised
    at the caller's line in this file."""
    assert len(found) == 1
    warning = found[0]
    message = str(warning.message)
    assert warning.category is UserWarning
    assert message.startswith(caller + ": ")
    assert "keep_first=1, keep_last=1" in message
    assert "pass layer= and num_layers=" in message
    assert warning.filename == __file__


# ------------------------------------------------------------------ torch


def test_torch_gradients_and_bits(rng):
    torch = pytest.importorskip("torch")
    import nvfp4.torch as nt
    x, w, dy = operands(rng)
    # Quantization disabled: the float64 products.
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    wt = torch.tensor(w.astype(np.float64), requires_grad=True)
    nt.nvfp4_linear(xt, wt, None).backward(torch.tensor(dy, dtype=torch.float64))
    x64, w64, dy64 = (a.astype(np.float64) for a in (x, w, dy))
    assert relative_error(xt.grad.numpy(), dy64 @ w64) < 1e-6
    assert relative_error(wt.grad.numpy(), dy64.T @ x64) < 1e-6
    # Quantized: the library's bits, also with leading batch dimensions.
    recipe = nvfp4.Recipe(seed=3)
    xt = torch.tensor(x.reshape(3, 16, 64), requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    y = nt.nvfp4_linear(xt, wt, recipe)
    y.backward(torch.tensor(dy.reshape(3, 16, 32)))
    ey, edx, edw = by_hand(x, w, dy, 3, 0)
    assert same_bits(y.detach().numpy().reshape(48, 32), ey)
    assert same_bits(xt.grad.numpy().reshape(48, 64), edx)
    assert same_bits(wt.grad.numpy(), edw)


def test_torch_linear_module_follows_the_layer_rules():
    torch = pytest.importorskip("torch")
    import nvfp4.torch as nt
    recipe = nvfp4.Recipe(keep_first=1, keep_last=1)
    layers = [nt.Linear(32, 32, recipe=recipe, layer=i, num_layers=4)
              for i in range(4)]
    assert [layer.fp4 for layer in layers] == [False, True, True, False]
    assert not nt.Linear(32, 32, recipe=recipe, high_precision=True).fp4
    torch.manual_seed(0)
    layer = nt.Linear(64, 16, recipe=nvfp4.Recipe(seed=1), bias=True)
    x = torch.randn(32, 64)
    target = torch.randn(32, 16)
    opt = torch.optim.SGD(layer.parameters(), lr=0.3)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = ((layer(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert layer.bias.grad is not None


def test_torch_layer_without_a_layer_index_warns():
    torch = pytest.importorskip("torch")
    import nvfp4.torch as nt
    recipe = nvfp4.Recipe(keep_first=1, keep_last=1, mode="fake")
    layers = []
    found = no_layer_index_warnings(
        lambda: layers.append(nt.Linear(32, 16, recipe=recipe)))
    check_no_layer_index_warning(found, "nvfp4.torch.Linear")
    # Once per layer: not again when it runs.
    x = torch.randn(4, 32)
    assert not no_layer_index_warnings(lambda: layers[0](x))
    assert layers[0].fp4
    # Placed, kept high, or under a recipe without layer rules: silent.
    for kwargs in (dict(recipe=recipe, layer=0, num_layers=2),
                   dict(recipe=recipe, high_precision=True),
                   dict(recipe=nvfp4.Recipe()),
                   dict(recipe=nvfp4.Recipe.ablation("bf16")),
                   dict(recipe=None)):
        assert not no_layer_index_warnings(
            lambda: nt.Linear(32, 16, **kwargs)), kwargs
    # A layer index without the layer count cannot place keep-last.
    assert len(no_layer_index_warnings(
        lambda: nt.Linear(32, 16, recipe=recipe, layer=1))) == 1
    # The function: warns unless the layer's place, format or fp4=False
    # say what it is; its place applies the rules.
    w = torch.randn(16, 32)
    found = no_layer_index_warnings(lambda: nt.nvfp4_linear(x, w, recipe))
    check_no_layer_index_warning(found, "nvfp4.torch.nvfp4_linear")
    for kwargs in (dict(layer=1, num_layers=2), dict(format="nvfp4"),
                   dict(fp4=False)):
        assert not no_layer_index_warnings(
            lambda: nt.nvfp4_linear(x, w, recipe, **kwargs)), kwargs
    assert same_bits(nt.nvfp4_linear(x, w, recipe, layer=1,
                                     num_layers=2).numpy(),
                     x.numpy() @ w.numpy().T)


# -------------------------------------------------------------------- jax


def test_jax_gradients_and_bits(rng):
    jax = pytest.importorskip("jax")
    import nvfp4.jax as nj
    x, w, dy = operands(rng)

    def loss(x, w, recipe):
        return (nj.nvfp4_linear(x, w, recipe) * dy).sum()

    dx, dw = jax.grad(loss, argnums=(0, 1))(x, w, None)
    x64, w64, dy64 = (a.astype(np.float64) for a in (x, w, dy))
    assert relative_error(dx, dy64 @ w64) < 1e-6
    assert relative_error(dw, dy64.T @ x64) < 1e-6
    recipe = nvfp4.Recipe(seed=5)
    y = nj.nvfp4_linear(x, w, recipe)
    dx, dw = jax.grad(loss, argnums=(0, 1))(x, w, recipe)
    ey, edx, edw = by_hand(x, w, dy, 5, 0)
    assert same_bits(np.asarray(y), ey)
    assert same_bits(np.asarray(dx), edx) and same_bits(np.asarray(dw), edw)


def test_jax_under_jit_is_the_eager_result(rng):
    jax = pytest.importorskip("jax")
    import nvfp4.jax as nj
    x, w, dy = operands(rng)
    # Round to nearest everywhere: the bits do not depend on the call. No
    # layer rules: the layer has no place in a model.
    recipe = nvfp4.Recipe.ablation("no-sr", keep_first=0, keep_last=0)

    def loss(x, w):
        return (nj.nvfp4_linear(x, w, recipe) * dy).sum()

    eager = jax.grad(loss, argnums=(0, 1))(x, w)
    jitted = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, w)
    for a, b in zip(eager, jitted):
        assert same_bits(np.asarray(a), np.asarray(b))
    ey, edx, edw = by_hand(x, w, dy, 0, 0, sr=False)
    assert same_bits(np.asarray(jitted[0]), edx)
    assert same_bits(np.asarray(jitted[1]), edw)


def test_jax_layer_without_a_layer_index_warns(rng):
    pytest.importorskip("jax")
    import nvfp4.jax as nj
    x, w, _ = operands(rng)
    recipe = nvfp4.Recipe(keep_first=1, keep_last=1)
    found = no_layer_index_warnings(lambda: nj.nvfp4_linear(x, w, recipe))
    check_no_layer_index_warning(found, "nvfp4.jax.nvfp4_linear")
    # The layer's place applies the rules: layer 0 of 3 is kept high (the
    # float32 product), layer 1 is the recipe's forward GEMM.
    results = {}
    for layer in range(3):
        assert not no_layer_index_warnings(lambda: results.setdefault(
            layer, nj.nvfp4_linear(x, w, recipe, layer=layer,
                                   num_layers=3)))
    assert same_bits(np.asarray(results[0]), x @ w.T)
    assert same_bits(np.asarray(results[1]),
                     nvfp4.linear_forward(x, w, recipe)[0])
    assert same_bits(np.asarray(results[2]), x @ w.T)
    for kwargs in (dict(format="nvfp4"), dict(fp4=False)):
        assert not no_layer_index_warnings(
            lambda: nj.nvfp4_linear(x, w, recipe, **kwargs)), kwargs
    assert not no_layer_index_warnings(
        lambda: nj.nvfp4_linear(x, w, nvfp4.Recipe()))
    with pytest.raises(ValueError, match="give both layer and num_layers"):
        nj.nvfp4_linear(x, w, recipe, layer=1)
    with pytest.raises(ValueError, match="give format or layer"):
        nj.nvfp4_linear(x, w, recipe, format="nvfp4", layer=1, num_layers=3)
