"""Normalization kernels (FusedBatchNorm, LRN, LRNGrad) on each backend, against jax formulas
(LRN's window sums by jnp.convolve-free slicing; LRNGrad against jax.vjp of LRN's formula), in
64 bits, and the spec's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: autouse)
from _kernel_helpers import assert_values, raises_for, run, sample


@pytest.mark.parametrize(("xs", "ps"), [((2, 3, 4), (4,)), ((2, 3, 2, 2), (1, 3, 1, 1)), ((3, 2), ())],
                         ids=str)
@pytest.mark.parametrize("dtype", [tp.float32, tp.float64])
def test_fused_batch_norm_matches_the_formula(dtype, xs, ps):
    x = sample(xs, dtype)
    scale, offset, mean = (sample(ps, dtype, seed=s) for s in (1, 2, 3))
    variance = sample(ps, dtype, 0.1, 2.0, seed=4)
    inputs = {"x": x, "scale": scale, "offset": offset, "mean": mean, "variance": variance}
    got = run("FusedBatchNorm", inputs, {"epsilon": 0.01})
    w = [jnp.asarray(a, jnp.float64) for a in (x, scale, offset, mean, variance)]
    want = (w[0] - w[3]) * jax.lax.rsqrt(w[4] + 0.01) * w[1] + w[2]
    assert_values(got, np.asarray(want), dtype)


def _lrn(x, depth_radius, bias, alpha, beta):
    c = x.shape[-1]
    sq = jnp.pad(x * x, [(0, 0)] * (x.ndim - 1) + [(depth_radius, depth_radius)])
    total = sum(sq[..., k:k + c] for k in range(2 * depth_radius + 1))
    return x / (bias + alpha * total) ** beta


LRN_ATTRS = [dict(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5),
             dict(depth_radius=1, bias=2.0, alpha=0.3, beta=0.75),
             dict(depth_radius=0, bias=1.5, alpha=0.5, beta=1.0)]


@pytest.mark.parametrize("attrs", LRN_ATTRS, ids=["tf-defaults", "radius-1", "radius-0"])
def test_lrn_and_lrn_grad_match_jax(attrs):
    x = sample((2, 3, 2, 7), tp.float64)
    y, back = jax.vjp(jax.jit(lambda a: _lrn(a, **attrs)), x)
    assert_values(run("LRN", {"x": x}, attrs), np.asarray(y), tp.float64)
    dy = sample(x.shape, tp.float64, seed=1)
    got = run("LRNGrad", {"dy": dy, "x": x, "y": np.asarray(y)}, attrs)
    assert_values(got, np.asarray(back(dy)[0]), tp.float64)


@pytest.mark.parametrize("dtype", [tp.float32, tp.float16, tp.bfloat16])
def test_narrow_floats_normalize_in_their_dtype(dtype):
    x = sample((2, 6), dtype)
    attrs = LRN_ATTRS[1]
    assert_values(run("LRN", {"x": x}, attrs), np.asarray(_lrn(x.astype(np.float64), **attrs)), dtype)
    p = np.ones(6, dtype.numpy)
    got = run("FusedBatchNorm", {"x": x, "scale": p, "offset": p, "mean": p, "variance": p}, {"epsilon": 0.0})
    assert_values(got, x.astype(np.float64), dtype)


def test_normalization_errors():
    x, p = np.zeros((2, 3), np.float32), np.zeros(3, np.float32)
    inputs = {"x": x, "scale": p, "offset": p, "mean": p, "variance": p}
    raises_for("FusedBatchNorm", tp.ShapeError, {**inputs, "mean": np.zeros(2, np.float32)}, None,
               "mean has shape (2,)", "does not broadcast")
    raises_for("FusedBatchNorm", tp.ShapeError, {**inputs, "scale": np.zeros((1, 2, 3), np.float32)}, None,
               "scale has shape (1, 2, 3)")
    raises_for("FusedBatchNorm", tp.DTypeError, {**inputs, "offset": p.astype(np.float64)}, None, "float64")
    raises_for("LRN", tp.ShapeError, {"x": np.float32(1)}, None, "0-d")
    raises_for("LRNGrad", tp.ShapeError, {"dy": x, "x": x, "y": x[:1]}, None, "one shape")
    with pytest.raises(tp.ShapeError, match="depth_radius.*must be >= 0"):
        tp.run_kernel("LRN", {"x": tp.asarray(x)}, {"depth_radius": -1})


@pytest.mark.parametrize("shape", [(2, 0), (0, 3)], ids=str)
def test_lrn_of_empty_inputs(shape):
    x = np.zeros(shape, np.float32)
    assert run("LRN", {"x": x}).shape == shape
    assert run("LRNGrad", {"dy": x, "x": x, "y": x}).shape == shape
