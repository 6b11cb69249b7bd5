"""The precision ladder of nvfp4.Recipe (``format`` / ``formats``) and the
MX formats in the linear layers (nvfp4.linear, nvfp4.torch, nvfp4.jax),
checked
against the numpy + ml_dtypes transcription of the OCP MX specification in
test_mx.py, never against the library's own results."""

import numpy as np
import pytest

import nvfp4
from nvfp4.linear import linear_backward, linear_forward
from test_mx import fill, spec_quantize

# The dialect's format names (test_mx.py's spec_quantize takes them).
FORMATS = ("mxfp4", "mxfp8_e4m3", "mxfp8_e5m2")


def test_ladder_formats_per_layer():
    r = nvfp4.Recipe(formats=("nvfp4", "mxfp8", "bf16"), keep_first=1,
                     keep_last=1, high_layers=[2])
    assert r.formats == ("nvfp4", "mxfp8_e4m3")
    # keep-first / keep-last keep a layer out of FP4, not out of MXFP8;
    # high-layers keeps it high.
    assert [r.layer_format(layer, 5) for layer in range(5)] == [
        "mxfp8_e4m3", "nvfp4", None, "nvfp4", "mxfp8_e4m3"]
    assert r.layer_format() == "nvfp4"
    m = nvfp4.Recipe(format="mxfp4", keep_first=1)
    assert [m.layer_format(layer, 3) for layer in range(3)] == [
        None, "mxfp4", "mxfp4"]
    assert nvfp4.Recipe(enabled=False).layer_format(1, 3) is None
    # The default ladder is NVFP4 alone, as before.
    assert nvfp4.Recipe(keep_first=1).layer_format(0, 3) is None
    assert nvfp4.Recipe(keep_first=1).layer_format(1, 3) == "nvfp4"


def test_ladder_pass_options():
    r = nvfp4.Recipe(formats=("nvfp4", "mxfp8_e5m2", "bf16"))
    assert r.pass_options().endswith("formats=nvfp4,mxfp8_e5m2")
    assert nvfp4.Recipe(format="mxfp4").pass_options().endswith(
        "format=mxfp4")
    assert "format" not in nvfp4.Recipe().pass_options()


@pytest.mark.parametrize("kwargs,message", [
    (dict(format="mxfp8"), "format must be 'nvfp4' or 'mxfp4'"),
    (dict(format="mxfp4", formats=("nvfp4",)), "not both"),
    (dict(formats=("nvfp4", "fp6")), "unknown format 'fp6'"),
    (dict(formats=("bf16", "nvfp4")), "ends the formats ladder"),
    (dict(formats=("mxfp8", "mxfp8_e4m3")), "appears twice"),
    (dict(formats=("bf16",)), "names no block-scaled format"),
])
def test_ladder_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nvfp4.Recipe(**kwargs)


def pad32(x):
    return np.pad(x, ((0, 0), (0, -x.shape[1] % 32)))


def spec_gemm(a, b, fa, fb):
    """A [M, K] x B [N, K] per the MX GEMM's definition on the
    specification's quantization (K padded to 32)."""
    da = spec_quantize(pad32(a), fa).astype(np.float64)
    db = spec_quantize(pad32(b), fb).astype(np.float64)
    out = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for blk in range(da.shape[1] // 32):
        s = slice(32 * blk, 32 * blk + 32)
        out = (out + (da[:, s] @ db[:, s].T).astype(np.float32)).astype(
            np.float32)
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_mx_linear_exact(fmt):
    # K = 40 and M = 24 pad to 64 and 32: every GEMM of the layer pads.
    x = fill(24, 40, 41, low=-5, high=5)
    w = fill(16, 40, 42, low=-5, high=5)
    dy = fill(24, 16, 43, low=-5, high=5)
    recipe = nvfp4.Recipe(formats=(fmt,))
    y, ctx = linear_forward(x, w, recipe)
    assert ctx.format == fmt
    assert y.tobytes() == spec_gemm(x, w, fmt, fmt).tobytes()
    dx, dw = linear_backward(dy, ctx)
    want_dx = spec_gemm(dy, np.ascontiguousarray(w.T), fmt, fmt)
    want_dw = spec_gemm(np.ascontiguousarray(dy.T), np.ascontiguousarray(x.T),
                        fmt, fmt)
    assert dx.tobytes() == want_dx.tobytes()
    assert dw.tobytes() == want_dw.tobytes()


def test_mx_linear_fake_quantized():
    x = fill(8, 64, 51, low=-5, high=5)
    w = fill(12, 64, 52, low=-5, high=5)
    y, _ = linear_forward(x, w, nvfp4.Recipe(format="mxfp4", mode="fake"))
    want = spec_quantize(x, "mxfp4") @ spec_quantize(w, "mxfp4").T
    assert y.tobytes() == want.astype(np.float32).tobytes()


def test_explicit_format_overrides_the_ladder():
    x = fill(8, 32, 61)
    w = fill(8, 32, 62)
    y, ctx = linear_forward(x, w, nvfp4.Recipe(), format="mxfp8_e5m2")
    assert ctx.format == "mxfp8_e5m2"
    assert y.tobytes() == spec_gemm(x, w, "mxfp8_e5m2",
                                    "mxfp8_e5m2").tobytes()
    with pytest.raises(ValueError, match="unknown format 'mxfp6'"):
        linear_forward(x, w, nvfp4.Recipe(), format="mxfp6")


def test_torch_linear_takes_its_layer_format():
    torch = pytest.importorskip("torch")
    import nvfp4.torch as nt
    recipe = nvfp4.Recipe(formats=("nvfp4", "mxfp8", "bf16"), keep_first=1)
    first = nt.Linear(32, 8, bias=False, recipe=recipe, layer=0,
                      num_layers=2)
    second = nt.Linear(32, 8, bias=False, recipe=recipe, layer=1,
                       num_layers=2)
    assert (first.format, second.format) == ("mxfp8_e4m3", "nvfp4")
    assert "format=mxfp8_e4m3" in repr(first)
    x = torch.from_numpy(fill(4, 32, 71)).requires_grad_()
    y = first(x)
    w = first.weight.detach().numpy()
    assert y.detach().numpy().tobytes() == spec_gemm(
        x.detach().numpy(), w, "mxfp8_e4m3", "mxfp8_e4m3").tobytes()
    y.sum().backward()
    assert x.grad.shape == (4, 32) and first.weight.grad.shape == (8, 32)


def test_jax_linear_takes_a_format():
    jax = pytest.importorskip("jax")
    from nvfp4.jax import nvfp4_linear
    recipe = nvfp4.Recipe(formats=("nvfp4", "mxfp8", "bf16"), keep_first=1)
    x = fill(4, 32, 72)
    w = fill(8, 32, 73)
    fmt = recipe.layer_format(0, 2)
    assert fmt == "mxfp8_e4m3"
    y = nvfp4_linear(x, w, recipe, format=fmt)
    assert np.asarray(y).tobytes() == spec_gemm(x, w, fmt, fmt).tobytes()
    # The backward GEMMs in the same format: dX = dY W along N, dW = dY^T X
    # along the tokens.
    dy = fill(4, 8, 74)
    _, vjp = jax.vjp(lambda a, b: nvfp4_linear(a, b, recipe, format=fmt), x,
                     w)
    dx, dw = vjp(dy)
    assert np.asarray(dx).tobytes() == spec_gemm(
        dy, np.ascontiguousarray(w.T), fmt, fmt).tobytes()
    assert np.asarray(dw).tobytes() == spec_gemm(
        np.ascontiguousarray(dy.T), np.ascontiguousarray(x.T), fmt,
        fmt).tobytes()
