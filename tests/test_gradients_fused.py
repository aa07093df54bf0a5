"""Gradients of the fused kernels (unfused, as TF.js's) against finite differences in float64
to second order, and against the gradients of the unfused composition; gradients of
tp.nn.dot_product_attention against jax.grad of jax.nn.dot_product_attention (float64 and
float32), and of tp.nn.embedding (a scatter-add into the table)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.testing import check_gradients

pytestmark = pytest.mark.usefixtures("core_gradients")  # the defaults, not plugin overrides

RNG = np.random.default_rng(11)
ACTIVATIONS = ("linear", "relu", "relu6", "elu", "leakyrelu", "prelu", "sigmoid")


def _matmul(activation, **attrs):
    def f(a, b, bias, weights):
        return tp.run_kernel(
            "FusedMatMul",
            {"a": a, "b": b, "bias": bias, "prelu_weights": weights},
            {"activation": activation, "has_bias": True, **attrs},
        )

    return f


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fused_matmul_second_order(activation):
    a, b, bias = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2)), RNG.standard_normal((2,))
    weights = RNG.uniform(-0.9, 0.9, (2,))
    if activation == "prelu":
        check_gradients(_matmul(activation), a, b, bias, weights, order=2)
    else:
        f = _matmul(activation, leakyrelu_alpha=-0.5, transpose_b=True)
        check_gradients(lambda x, y, c: f(x, y, c, np.zeros(())), a, b.T.copy(), bias, order=2)


def test_fused_matmul_third_order_and_batches():
    a, b, bias = (
        RNG.standard_normal((2, 1, 2, 3)),
        RNG.standard_normal((2, 3, 2)),
        RNG.standard_normal((2, 2)),
    )
    f = _matmul("sigmoid", transpose_a=False)
    check_gradients(lambda x, y, c: f(x, y, c, np.zeros(())), a, b, bias, order=3)


CONVS = [
    pytest.param(
        "FusedConv2D", (1, 3, 3, 2), (2, 2, 2, 2), {"strides": (2, 1), "padding": ((1, 0), (0, 1))}, id="conv"
    ),
    pytest.param(
        "FusedConv2D", (1, 2, 3, 3), (2, 2, 1, 2), {"groups": 2, "data_format": "NCHW"}, id="conv-nchw"
    ),
    pytest.param(
        "FusedDepthwiseConv2D",
        (1, 3, 3, 2),
        (2, 2, 2, 2),
        {"dilations": (1, 2), "padding": ((0, 1), (1, 1))},
        id="depthwise",
    ),
]


@pytest.mark.parametrize("activation", ["relu", "prelu", "elu"])  # (leakyrelu: as prelu, on FusedMatMul)
@pytest.mark.parametrize(("name", "xs", "ws", "attrs"), CONVS)
def test_fused_convs_second_order(name, xs, ws, attrs, activation):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    channels = ws[-1] * (ws[-2] if name == "FusedDepthwiseConv2D" else 1)
    bias = RNG.standard_normal((channels,))
    weights = RNG.uniform(0.1, 0.9, (channels, 1, 1) if attrs.get("data_format") == "NCHW" else (channels,))

    def f(a, b, c, d):
        return tp.run_kernel(
            name,
            {"x": a, "filter": b, "bias": c, "prelu_weights": d},
            {**attrs, "activation": activation, "has_bias": True},
        )

    if activation == "prelu":
        check_gradients(f, x, w, bias, weights, order=2)
    else:
        check_gradients(lambda a, b, c: f(a, b, c, np.zeros(())), x, w, bias, order=2)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_gradients_equal_the_unfused_composition(activation):
    a, b, bias = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 5)), RNG.standard_normal((5,))
    weights = RNG.uniform(0.1, 0.9, (5,))
    x, w = RNG.standard_normal((2, 4, 4, 3)), RNG.standard_normal((3, 3, 3, 5))
    prelu = weights if activation == "prelu" else None
    unfused = {
        "linear": lambda z: z,
        "relu": tp.nn.relu,
        "relu6": tp.nn.relu6,
        "elu": tp.nn.elu,
        "leakyrelu": lambda z: tp.nn.leaky_relu(z, 0.2),
        "prelu": lambda z: tp.nn.prelu(z, weights),
        "sigmoid": tp.nn.sigmoid,
    }[activation]
    pairs = [
        (
            lambda p, q, c: tp.nn.fused_matmul(p, q, c, activation, prelu_weights=prelu),
            lambda p, q, c: unfused(tp.matmul(p, q) + c),
            (a, b, bias),
        ),
        (
            lambda p, q, c: tp.nn.fused_conv(p, q, c, activation, 2, "SAME", prelu_weights=prelu),
            lambda p, q, c: unfused(tp.nn.conv(p, q, 2, "SAME") + c),
            (x, w, bias),
        ),
    ]
    for fused, composed, args in pairs:
        dy = RNG.standard_normal(np.asarray(composed(*args).numpy()).shape)
        got = tp.grad(lambda *t, f=fused, d=dy: tp.sum(f(*t) * d), argnums=(0, 1, 2))(*args)
        want = tp.grad(lambda *t, f=composed, d=dy: tp.sum(f(*t) * d), argnums=(0, 1, 2))(*args)
        for g, h in zip(got, want):
            np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-12, atol=1e-12)


def test_fused_conv_ops_second_order():
    x, w, bias = (
        RNG.standard_normal((1, 2, 3, 2)),
        RNG.standard_normal((2, 2, 1, 2)),
        RNG.standard_normal((2,)),
    )
    check_gradients(
        lambda p, q, c: tp.nn.fused_conv(p, q, c, "elu", padding="SAME", groups=2), x, w, bias, order=2
    )
    x1, w1 = RNG.standard_normal((1, 4, 2)), RNG.standard_normal((2, 2, 3))
    check_gradients(lambda p, q: tp.nn.fused_conv(p, q, None, "sigmoid", 2, "SAME"), x1, w1, order=2)


# -- attention and embedding --------------------------------------------------------------------
def _attention_args(dtype, grouped=True):
    """(query, key, value, mask, bias), the same on every call: jax's references are cached."""
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 3, 4 if grouped else 2, 3)).astype(dtype)
    k, v = (rng.standard_normal((2, 4, 2, 3)).astype(dtype) for _ in range(2))
    mask = rng.random((2, 1, 3, 4)) < 0.6
    mask[0, 0, 1] = False  # a fully masked row
    bias = rng.standard_normal((1, 4 if grouped else 2, 3, 4)).astype(dtype)
    return q, k, v, mask, bias


_JAX: dict[tuple[str, ...], tuple[object, ...]] = {}  # (options, dtype, reference) -> value and grads


def _definition(q, k, v, bias=None, mask=None, scale=None, is_causal=False):
    """jax.nn.dot_product_attention's definition with the softmax in the inputs' dtype (jax
    takes it in float32 even for float64)."""
    b, t, n, h = q.shape
    s, heads = k.shape[1], k.shape[2]
    logits = jnp.einsum("btkgh,bskh->bkgts", q.reshape(b, t, heads, n // heads, h), k).reshape(b, n, t, s)
    logits = logits * (1 / np.sqrt(h) if scale is None else scale)
    logits = logits if bias is None else logits + bias
    keep = jnp.ones((b, n, t, s), bool) if mask is None else jnp.broadcast_to(mask, (b, n, t, s))
    keep = keep & jnp.tril(jnp.ones((t, s), bool)) if is_causal else keep
    probs = jax.nn.softmax(jnp.where(keep, logits, -0.7 * float(np.finfo(np.float32).max)), axis=-1)
    out = jnp.einsum("bkgts,bskh->btkgh", probs.reshape(b, heads, n // heads, t, s), v)
    return out.reshape(b, t, n, h)


ATTENTION = [
    pytest.param({}, np.float64, id="plain"),
    pytest.param({"is_causal": True, "scale": 0.7}, np.float64, id="causal-scale"),
    pytest.param({"mask": True, "bias": True}, np.float64, id="mask-bias"),
    pytest.param({"mask": True, "bias": True, "is_causal": True}, np.float32, id="float32"),
]


@pytest.mark.parametrize(("options", "dtype"), ATTENTION)
def test_attention_values_and_gradients_agree_with_jax(options, dtype):
    q, k, v, mask, bias = _attention_args(dtype)
    kwargs = {
        **options,
        "mask": mask if options.get("mask") else None,
        "bias": bias if options.get("bias") else None,
    }

    def ours(a, b, c):
        return tp.sum(tp.nn.dot_product_attention(a, b, c, **kwargs) ** 2)

    value, got = tp.value_and_grad(ours, argnums=(0, 1, 2))(q, k, v)
    references = [(jax.nn.dot_product_attention, 2e-5)]  # (its float32 softmax)
    if dtype == np.float64:
        references.append((_definition, 1e-12))
    for attention, tol in references:
        key = (str(sorted(options)), np.dtype(dtype).name, attention.__name__)
        if key not in _JAX:
            with jax.enable_x64(dtype == np.float64):
                _JAX[key] = jax.jit(
                    jax.value_and_grad(
                        lambda a, b, c, f=attention: jnp.sum(f(a, b, c, **kwargs) ** 2), argnums=(0, 1, 2)
                    )
                )(q, k, v)
        want_value, want = _JAX[key]
        np.testing.assert_allclose(value.numpy(), want_value, rtol=tol, atol=tol)
        for g, h in zip(got, want):
            assert g.numpy().dtype == dtype
            np.testing.assert_allclose(g.numpy(), np.asarray(h), rtol=tol, atol=tol)


def test_attention_second_order():
    q, k, v, mask, bias = (
        a[:1, :2] if a.ndim == 4 and a.shape[1] != 1 else a for a in _attention_args(np.float64, False)
    )
    check_gradients(
        lambda a, b, c, d: tp.nn.dot_product_attention(a, b, c, d, mask[:1, :, :2, :2]),
        q,
        k,
        v,
        bias[:, :, :2, :2],
        order=2,
    )


def test_embedding_gradient_scatter_adds():
    table = RNG.standard_normal((4, 3))
    ids = np.array([[0, 2, 2], [3, 0, 0]])
    check_gradients(lambda t: tp.nn.embedding(ids, t), table, order=2)
    dy = RNG.standard_normal((2, 3, 3))
    (g,) = tp.grad(lambda t: tp.sum(tp.nn.embedding(ids, t) * dy), argnums=(0,))(table)
    want = np.zeros_like(table)
    np.add.at(want, ids, dy)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12, atol=1e-12)
