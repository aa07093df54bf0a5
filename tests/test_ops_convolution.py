"""tp.nn's convolution ops: conv (1-, 2-, 3-d; 'VALID', 'SAME', ints and pairs; both data
formats) against jax.lax.conv_general_dilated, conv_transpose against PyTorch's
conv_transpose and against the definition (the gradient of conv), depthwise_conv and
separable_conv against their compositions, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

RNG = np.random.default_rng(3)


def _lax_conv(x, w, strides, padding, dilation=1, groups=1, channels_first=False):
    jax = pytest.importorskip("jax")
    rank = x.ndim - 2
    spatial = "DHW"[3 - rank:] if rank > 1 else "W"
    fmt = f"NC{spatial}" if channels_first else f"N{spatial}C"

    def per_dim(v):
        return (v,) * rank if isinstance(v, int) else tuple(v)

    pads = padding if isinstance(padding, str) else tuple(
        (p, p) if isinstance(p, int) else tuple(p)
        for p in ((padding,) * rank if isinstance(padding, int) else padding))
    with jax.enable_x64(True):
        return np.asarray(jax.lax.conv_general_dilated(
            x, w, per_dim(strides), pads, rhs_dilation=per_dim(dilation),
            dimension_numbers=(fmt, spatial + "IO", fmt), feature_group_count=groups))


CONVS = [  # (x shape, kernel shape, keyword arguments)
    pytest.param((2, 9, 3), (3, 3, 4), {"strides": 2, "padding": "SAME"}, id="1d-same"),
    pytest.param((2, 3, 9), (2, 1, 6), {"padding": [(2, 1)], "dilation": 3, "groups": 3,
                                        "data_format": "channels_first"}, id="1d-nchw"),
    pytest.param((2, 7, 6, 3), (3, 2, 3, 4), {"strides": (2, 1), "padding": "SAME", "dilation": (1, 2)},
                 id="2d-same"),
    pytest.param((1, 4, 6, 5), (3, 3, 2, 6), {"padding": 1, "groups": 2, "data_format": "channels_first"},
                 id="2d-int-padding"),
    pytest.param((1, 6, 5, 2), (2, 2, 2, 3), {"strides": 3, "padding": [(0, 1), 2]}, id="2d-mixed-padding"),
    pytest.param((1, 4, 5, 6, 2), (2, 3, 2, 2, 4), {"strides": (1, 2, 2), "padding": "SAME"}, id="3d-same"),
    pytest.param((1, 2, 4, 5, 4), (2, 2, 2, 2, 2), {"dilation": (2, 1, 2), "data_format": "NCDHW"},
                 id="3d-ncdhw"),
]


@pytest.mark.parametrize(("xs", "ws", "kw"), CONVS)
def test_conv_agrees_with_lax(xs, ws, kw):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    got = tp.nn.conv(x, w, **kw).numpy()
    want = _lax_conv(x, w, kw.get("strides", 1), kw.get("padding", "VALID"), kw.get("dilation", 1),
                     kw.get("groups", 1), kw.get("data_format", "channels_last") != "channels_last")
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv_keeps_float32_and_promotes_integers():
    x, w = np.ones((1, 4, 4, 1), np.float32), np.ones((2, 2, 1, 1), np.float32)
    assert tp.nn.conv(x, w).dtype == tp.float32
    out = tp.nn.conv(np.ones((1, 4, 1), np.int64), np.ones((2, 1, 1), np.int64))
    assert out.dtype == tp.float32 and out.numpy().ravel().tolist() == [2.0, 2.0, 2.0]


def _by_definition(x, w, strides, padding, output_padding, dilation=1, groups=1):
    """conv_transpose as the gradient of conv: the vjp of conv(·, w) at an input of the result's
    shape, which the caller computes with PyTorch's formula."""
    rank = x.ndim - 2
    sizes = [(n - 1) * strides - 2 * padding + dilation * (k - 1) + 1 + output_padding
             for n, k in zip(x.shape[1:-1], w.shape[:rank])]
    shape = (x.shape[0], *sizes, w.shape[rank] * groups)
    return tp.vjp(lambda z: tp.nn.conv(z, w, strides, padding, dilation=dilation, groups=groups),
                  tp.zeros(shape, dtype=tp.float64))[1](tp.asarray(x))[0].numpy()


@pytest.mark.parametrize(("xs", "ws", "strides", "padding", "output_padding", "groups"), [
    ((1, 4, 3), (3, 2, 3), 2, 1, 1, 1),
    ((2, 3, 4, 4), (3, 2, 2, 4), 2, 0, 1, 2),
    ((1, 2, 3, 2, 2), (2, 2, 3, 3, 2), 3, 1, 2, 1),
])
def test_conv_transpose_is_the_gradient_of_conv(xs, ws, strides, padding, output_padding, groups):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    got = tp.nn.conv_transpose(x, w, strides, padding, groups=groups, output_padding=output_padding).numpy()
    np.testing.assert_allclose(got, _by_definition(x, w, strides, padding, output_padding, groups=groups),
                               rtol=1e-12, atol=1e-12)


def _scatter_conv_transpose_2d(x, w, strides, padding, dilation, groups, output_padding):
    """Transposed convolution as PyTorch defines it: every input pixel adds its channel's
    filter, scaled, at stride steps; then the padding is cut off each side and output_padding
    extends the far end. x NHWC, w (kH, kW, out / groups, in)."""
    (n, h, wd, cin), (kh, kw, og, _) = x.shape, w.shape
    (sh, sw), (dh, dw), ((ph0, ph1), (pw0, pw1)), (oh, ow) = strides, dilation, padding, output_padding
    rows, cols = (h - 1) * sh + dh * (kh - 1) + 1 + oh, (wd - 1) * sw + dw * (kw - 1) + 1 + ow
    full, per_group = np.zeros((n, rows, cols, og * groups)), cin // groups
    for i, j, a, b in np.ndindex(h, wd, kh, kw):
        for c in range(cin):
            g = c // per_group
            out = slice(g * og, (g + 1) * og)
            full[:, i * sh + a * dh, j * sw + b * dw, out] += x[:, i, j, c, None] * w[a, b, :, c]
    return full[:, ph0:full.shape[1] - ph1, pw0:full.shape[2] - pw1]


def test_conv_transpose_is_pytorchs_scatter_definition():
    x, w = RNG.standard_normal((2, 5, 4, 6)), RNG.standard_normal((3, 2, 2, 6))  # NHWC; HW, out/g, in
    got = tp.nn.conv_transpose(x, w, (2, 3), ((1, 1), (0, 0)), dilation=(1, 2), groups=2,
                               output_padding=(1, 2)).numpy()
    want = _scatter_conv_transpose_2d(x, w, (2, 3), ((1, 1), (0, 0)), (1, 2), 2, (1, 2))
    assert got.shape == want.shape == (2, 10, 14, 4)  # PyTorch's sizes: (n-1)s - 2p + d(k-1) + op + 1
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv_transpose_same_and_output_shape():
    x, w = RNG.standard_normal((1, 3, 4, 2)), RNG.standard_normal((3, 3, 5, 2))
    same = tp.nn.conv_transpose(x, w, 2, "SAME")
    assert same.shape == (1, 6, 8, 5)
    # its forward convolution maps the result's shape back to x's
    assert tp.nn.conv(same, w, 2, "SAME").shape == x.shape
    assert tp.nn.conv_transpose(x, w, 2, "SAME", output_shape=(5, 7)).shape == (1, 5, 7, 5)
    with pytest.raises(tp.ShapeError, match="conv_transpose: no output of spatial sizes"):
        tp.nn.conv_transpose(x, w, 2, "SAME", output_shape=(9, 8))
    with pytest.raises(tp.ShapeError, match="conv_transpose: no output"):
        tp.nn.conv_transpose(x, w, 2, output_padding=2)
    with pytest.raises(tp.ArgumentError, match="output_padding or output_shape, not both"):
        tp.nn.conv_transpose(x, w, 2, output_padding=1, output_shape=(7, 9))


def test_depthwise_conv_is_a_grouped_conv():
    x, w = RNG.standard_normal((2, 5, 6, 3)), RNG.standard_normal((3, 2, 3, 2))  # (H, W, C, multiplier)
    got = tp.nn.depthwise_conv(x, w, (1, 2), "SAME").numpy()
    want = _lax_conv(x, w.reshape(3, 2, 1, 6), (1, 2), "SAME", groups=3)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    # channel c * multiplier + m comes from input channel c alone
    single = np.zeros_like(x)
    single[..., 1] = x[..., 1]
    np.testing.assert_allclose(tp.nn.depthwise_conv(single, w, (1, 2), "SAME").numpy()[..., 2:4],
                               got[..., 2:4], atol=1e-12)


def test_separable_conv_is_depthwise_then_pointwise():
    x, dw = RNG.standard_normal((1, 5, 5, 2)), RNG.standard_normal((3, 3, 2, 2))
    pw = RNG.standard_normal((4, 3))
    got = tp.nn.separable_conv(x, dw, pw, 1, "SAME").numpy()
    want = np.einsum("nhwc,co->nhwo", tp.nn.depthwise_conv(x, dw, 1, "SAME").numpy(), pw)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tp.nn.separable_conv(x, dw, pw.reshape(1, 1, 4, 3), 1, "SAME").numpy(), got)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: tp.nn.conv(np.ones((4, 4)), np.ones((2, 2))), tp.ShapeError,
     "conv: x has shape .* 3, 4 or 5 dims"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 3)), np.ones((2, 2, 3))), tp.ShapeError, "the kernel has shape"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 3)), np.ones((2, 2, 2, 4))), tp.ShapeError,
     "has 3 channels but the filter"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 4)), np.ones((2, 2, 2, 3)), groups=2), tp.ShapeError,
     "multiple of groups"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 1)), np.ones((5, 2, 1, 1))), tp.ShapeError, "pad more"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1)), np.ones((2, 1, 1)), padding="FULL"), tp.ShapeError,
     "'VALID' or 'SAME'"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), padding=[1, 2, 3]), tp.ShapeError,
     "does not fit 2 spatial dim"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1)), np.ones((2, 1, 1)), strides=0), tp.ShapeError,
     "strides must be >= 1"),
    (lambda: tp.nn.conv(np.ones((1, 4, 4, 1)), np.ones((2, 2, 1, 1)), strides=(1, 2, 3)), tp.ShapeError,
     "3 entries for 2 spatial"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1)), np.ones((2, 1, 1)), dilation=1.5), tp.ArgumentError,
     "dilation must be an int"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1)), np.ones((2, 1, 1)), data_format="NHWC"), tp.ShapeError,
     "'NWC' or 'NCW'"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1), np.complex64), np.ones((2, 1, 1))), tp.DTypeError, "complex"),
    (lambda: tp.nn.conv(np.ones((1, 4, 1)), np.ones((2, 1, 1)), padding=2**62, strides=2**62), tp.ShapeError,
     "limit"),
    (lambda: tp.nn.conv_transpose(np.ones((1, 4, 3)), np.ones((2, 3, 2))), tp.ShapeError,
     "its last dim must be x's 3 channels"),
    (lambda: tp.nn.depthwise_conv(np.ones((1, 4, 4, 3)), np.ones((2, 2, 2, 1))), tp.ShapeError,
     "must be x's 3 channels"),
    (lambda: tp.nn.separable_conv(np.ones((1, 4, 4, 2)), np.ones((2, 2, 2, 1)), np.ones((2, 2, 2, 3))),
     tp.ShapeError, "pointwise_kernel has shape"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_conv_under_jit_and_grad():
    x = RNG.standard_normal((2, 5, 5, 2)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 2, 3)).astype(np.float32)

    @tp.jit
    def loss(w):
        return tp.sum(tp.nn.relu(tp.nn.conv(tp.asarray(x), w, 1, "SAME")) ** 2)

    g = tp.grad(lambda w: tp.sum(tp.nn.relu(tp.nn.conv(tp.asarray(x), w, 1, "SAME")) ** 2))(tp.asarray(w))
    assert loss(tp.asarray(w)).shape == () and g.shape == w.shape
    jitted = tp.jit(tp.grad(lambda w: tp.sum(tp.nn.relu(tp.nn.conv(tp.asarray(x), w, 1, "SAME")) ** 2)))
    np.testing.assert_allclose(jitted(tp.asarray(w)).numpy(), g.numpy(), rtol=1e-5, atol=1e-5)
