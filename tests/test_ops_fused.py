"""tp.nn.fused_matmul, fused_conv, dot_product_attention and embedding: values against the
unfused ops and jax.nn, which kernel each call runs, dtypes, and their errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tensorplug as tp

RNG = np.random.default_rng(5)


def _kernels(fn):
    """The names of the kernels `fn` runs."""
    with tp.profile() as prof:
        fn()
    return {e.name for e in prof.events if e.category == "kernel"}


def test_fused_matmul_values_and_defaults():
    a, b, bias = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)), RNG.standard_normal((2,))
    np.testing.assert_allclose(tp.nn.fused_matmul(a, b).numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(
        tp.nn.fused_matmul(a, b, bias, "relu").numpy(), np.maximum(a @ b + bias, 0), rtol=1e-12
    )
    got = tp.nn.fused_matmul(a.T.copy(), b, bias, "leakyrelu", transpose_a=True, leakyrelu_alpha=0.1)
    z = a @ b + bias
    np.testing.assert_allclose(got.numpy(), np.where(z >= 0, z, 0.1 * z), rtol=1e-12)
    ints = tp.nn.fused_matmul(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32))
    assert ints.dtype == tp.float32  # integers go to the default float


@pytest.mark.parametrize(("channels", "groups"), [(6, 1), (6, 3), (6, 6), (3, 3)])
def test_fused_conv_runs_the_fused_kernels_in_2d(channels, groups):
    x = RNG.standard_normal((1, 5, 5, channels))  # (3, 3): depthwise with a multiplier of 2
    w, bias = RNG.standard_normal((3, 3, channels // groups, 6)), RNG.standard_normal((6,))
    fused = tp.nn.fused_conv(x, w, bias, "relu6", 2, "SAME", groups=groups)
    want = np.clip(tp.nn.conv(x, w, 2, "SAME", groups=groups).numpy() + bias, 0, 6)
    np.testing.assert_allclose(fused.numpy(), want, rtol=1e-12, atol=1e-12)
    ran = _kernels(lambda: tp.nn.fused_conv(x, w, bias, "relu6", 2, "SAME", groups=groups))
    want_kernel = "FusedConv2D" if groups == 1 else "FusedDepthwiseConv2D" if groups == channels else "Conv2D"
    assert want_kernel in ran


def test_fused_conv_composes_other_ranks():
    x, w, bias = (
        RNG.standard_normal((2, 3, 4, 3, 2)),
        RNG.standard_normal((2, 2, 2, 2, 3)),
        RNG.standard_normal(3),
    )
    weights = RNG.uniform(0.1, 0.5, (3,))
    got = tp.nn.fused_conv(x, w, bias, "prelu", padding=1, prelu_weights=weights)
    z = tp.nn.conv(x, w, padding=1).numpy() + bias
    np.testing.assert_allclose(got.numpy(), np.where(z > 0, z, weights * z), rtol=1e-12, atol=1e-12)


def test_fused_conv_channels_first():
    x, w, bias = RNG.standard_normal((2, 3, 5, 4)), RNG.standard_normal((2, 2, 3, 4)), RNG.standard_normal(4)
    got = tp.nn.fused_conv(x, w, bias, "sigmoid", data_format="channels_first")
    z = tp.nn.conv(x, w, data_format="channels_first").numpy() + bias[:, None, None]
    np.testing.assert_allclose(got.numpy(), 1 / (1 + np.exp(-z)), rtol=1e-12, atol=1e-12)


def test_fused_errors():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    with pytest.raises(tp.ShapeError, match="fused_matmul: activation 'tanh' is not one of"):
        tp.nn.fused_matmul(a, b, activation="tanh")
    with pytest.raises(tp.ShapeError, match="prelu_weights go with activation='prelu'"):
        tp.nn.fused_matmul(a, b, activation="prelu")
    with pytest.raises(tp.ShapeError, match="need at least 2 dimensions"):
        tp.nn.fused_matmul(np.ones(3), b)
    with pytest.raises(tp.ShapeError, match="fused_matmul: the bias"):
        tp.nn.fused_matmul(a, b, np.ones(3))
    with pytest.raises(tp.DTypeError, match="real numbers"):
        tp.nn.fused_matmul(a.astype(np.complex64), b)
    with pytest.raises(tp.ShapeError, match="fused_conv: the bias has shape"):
        tp.nn.fused_conv(np.ones((1, 3, 3, 2)), np.ones((2, 2, 2, 4)), np.ones(3))
    with pytest.raises(tp.ShapeError, match="fused_conv"):
        tp.nn.fused_conv(np.ones((1, 3, 3, 2)), np.ones((2, 2, 3, 4)))


# -- attention ----------------------------------------------------------------------------------
def _jax_attention(*args, **kwargs):
    with jax.enable_x64(True):
        return np.asarray(jax.nn.dot_product_attention(*(jnp.asarray(a) for a in args), **kwargs))


def test_attention_unbatched_and_grouped():
    q, k, v = RNG.standard_normal((3, 4, 2)), RNG.standard_normal((5, 2, 2)), RNG.standard_normal((5, 2, 2))
    got = tp.nn.dot_product_attention(q, k, v, is_causal=True)
    assert got.shape == (3, 4, 2)
    np.testing.assert_allclose(got.numpy(), _jax_attention(q, k, v, is_causal=True), rtol=1e-6, atol=1e-6)


def test_a_fully_masked_row_averages_the_values():
    q, k, v = (
        RNG.standard_normal((1, 2, 1, 2)),
        RNG.standard_normal((1, 3, 1, 2)),
        RNG.standard_normal((1, 3, 1, 2)),
    )
    mask = np.array([[True, False, True], [False, False, False]])
    got = tp.nn.dot_product_attention(q, k, v, mask=mask).numpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got[0, 1, 0], v[0, :, 0].mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(got, _jax_attention(q, k, v, mask=mask), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16], ids=str)
def test_attention_half_floats(dtype):
    q, k, v = (RNG.standard_normal((1, 3, 2, 4)).astype(np.float32) for _ in range(3))
    got = tp.nn.dot_product_attention(*(tp.asarray(a).astype(dtype) for a in (q, k, v)))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(tp.float32).numpy(), _jax_attention(q, k, v), rtol=0.05, atol=0.05)


def test_attention_errors():
    q, k = np.ones((1, 2, 3, 4)), np.ones((1, 2, 2, 4))
    with pytest.raises(tp.ShapeError, match="3 heads do not split into key's 2 heads"):
        tp.nn.dot_product_attention(q, k, k)
    with pytest.raises(tp.ShapeError, match="all 3-d"):
        tp.nn.dot_product_attention(q, k[0], k[0])
    with pytest.raises(tp.ShapeError, match="one shape"):
        tp.nn.dot_product_attention(q, np.ones((1, 2, 3, 4)), np.ones((1, 3, 3, 4)))
    with pytest.raises(tp.DTypeError, match="the mask must be boolean"):
        tp.nn.dot_product_attention(q, q, q, mask=np.ones((2, 2)))
    with pytest.raises(tp.ShapeError, match="does not broadcast to the logits' shape"):
        tp.nn.dot_product_attention(q, q, q, bias=np.ones((3, 3)))
    with pytest.raises(tp.DTypeError, match="share one dtype"):
        tp.nn.dot_product_attention(q, q.astype(np.float32), q)


# -- embedding ----------------------------------------------------------------------------------
def test_embedding_values_and_errors():
    table, ids = RNG.standard_normal((5, 3)), np.array([[4, 0], [1, 1]])
    np.testing.assert_array_equal(tp.nn.embedding(ids, table).numpy(), table[ids])
    with pytest.raises(tp.DTypeError, match="embedding: ids must be integers, got float64"):
        tp.nn.embedding(ids.astype(np.float64), table)
    with pytest.raises(tp.ShapeError, match="the table must be 2-d"):
        tp.nn.embedding(ids, table[0])
    with pytest.raises(tp.TensorplugError, match="take"):
        tp.nn.embedding(np.array([5]), table)
