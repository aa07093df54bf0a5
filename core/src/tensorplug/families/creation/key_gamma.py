"""Gamma, log-gamma and beta draws from a key, as ``jax.random.gamma``, ``loggamma`` and
``beta``: Marsaglia and Tsang's rejection sampler with JAX's key schedule (one key per number,
``split(key, n)``; per try ``split(key, 3)``, a normal redrawn while 1 + c x <= 0, a uniform).

JAX loops until each number is accepted (``lax.while_loop``); here every number makes
``TRIES`` tries of at most ``REDRAWS`` normals each, all at once, and keeps its first accepted
one, so a number is JAX's unless it needs more (probability below 1e-7 per number: a try is
rejected with probability under 0.05 and a normal redrawn with probability under 0.008); such
a number keeps its last proposal that had a positive v (a gamma-distributed draw no longer).
Gradients with respect to `a` flow through the sampler's arithmetic (JAX differentiates the
gamma CDF implicitly instead)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType
from tensorplug.errors import ShapeError
from tensorplug.families._common.convert import asarray, astype
from tensorplug.families.creation.key_samplers import exponential, float_dtype, normal, uniform
from tensorplug.families.creation.keys import single_key, split
from tensorplug.families.creation.ops import full_like, new_shape
from tensorplug.families.elementwise.ops import (
    equal,
    exp,
    greater,
    greater_equal,
    less_equal,
    log,
    logical_and,
    logical_or,
    maximum,
    pow,
    sqrt,
    where,
)
from tensorplug.families.manipulation.ops import broadcast_to, reshape
from tensorplug.families.structure.ops import broadcast_shapes

__all__ = ["gamma", "loggamma", "beta", "TRIES", "REDRAWS"]

TRIES = 6
REDRAWS = 4


def _alpha(key: Tensor, a: Any, shape: Any, dtype: Any, op: str) -> tuple[Tensor, DType]:
    single_key(key, op)
    dt = float_dtype(dtype, op)
    alpha = astype(a, dt) if isinstance(a, Tensor) else asarray(valid.number(a, op, "a"), dtype=dt)
    dims = alpha.shape if shape is None else new_shape(shape, op)
    try:
        return broadcast_to(alpha, dims), dt
    except ShapeError:
        raise ShapeError(f"{op}: a of shape {alpha.shape} does not broadcast to shape {dims}; pass "
                         f"shape=None (a's shape) or one that a broadcasts to.") from None


def _marsaglia_tsang(key: Tensor, alpha: Tensor, log_space: bool) -> Tensor:
    """JAX's ``_gamma_one`` for every element of `alpha` at once (1-d), each with its own key."""
    dt = alpha.dtype
    n = alpha.shape[0]
    keys = split(key, n)
    boost = greater_equal(alpha, 1.0)
    boosted = where(boost, alpha, alpha + 1.0)
    d = boosted - 1.0 / 3.0
    c = (1.0 / 3.0) / sqrt(d)
    pair = split(keys)
    keys, last = pair[:, 0], pair[:, 1]
    big_x, big_v, big_u = full_like(alpha, 0.0), full_like(alpha, 1.0), full_like(alpha, 2.0)

    def going(x2: Tensor, v3: Tensor, u: Tensor) -> Tensor:
        squeeze = greater_equal(u, 1.0 - 0.0331 * (x2 * x2))
        return logical_and(squeeze, greater_equal(log(u), x2 * 0.5 + d * (1.0 - v3 + log(v3))))

    for _ in range(TRIES):
        active = going(big_x, big_v, big_u)
        three = split(keys, 3)
        keys, x_key, u_key = three[:, 0], three[:, 1], three[:, 2]
        x, v = full_like(alpha, 0.0), full_like(alpha, -1.0)
        for _ in range(REDRAWS):
            redraw = split(x_key)
            x_key, sub = redraw[:, 0], redraw[:, 1]
            pending = less_equal(v, 0.0)
            x_new = normal(sub, (), dt)
            x, v = where(pending, x_new, x), where(pending, x_new * c + 1.0, v)
        taken = logical_and(active, greater(v, 0.0))  # (a try whose normals all failed: skipped)
        big_x = where(taken, x * x, big_x)
        big_v = where(taken, v * v * v, big_v)
        big_u = where(taken, uniform(u_key, (), dt), big_u)
    if log_space:
        log_samples = -exponential(last, (), dt)
        log_boost = where(logical_or(boost, equal(log_samples, 0.0)), 0.0, log_samples * (1.0 / alpha))
        return log(d) + log(big_v) + log_boost
    samples = 1.0 - uniform(last, (), dt)
    return d * big_v * where(boost, 1.0, pow(samples, 1.0 / alpha))


def _draw(key: Tensor, alpha: Tensor, log_space: bool) -> Tensor:
    if alpha.size == 0:
        return alpha
    flat = reshape(alpha, (alpha.size,))
    return reshape(_marsaglia_tsang(key, flat, log_space), alpha.shape)


def gamma(key: Tensor, a: Any, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Tensor:
    """Gamma(a) samples (unit rate) of `shape` (default a's shape; float32 unless `dtype`), as
    ``jax.random.gamma``."""
    alpha, _ = _alpha(key, a, shape, dtype, "gamma")
    return _draw(key, alpha, log_space=False)


def loggamma(key: Tensor, a: Any, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Tensor:
    """The logs of gamma(a) samples, computed in log space (exact for small `a`), as
    ``jax.random.loggamma``."""
    alpha, _ = _alpha(key, a, shape, dtype, "loggamma")
    return _draw(key, alpha, log_space=True)


def beta(key: Tensor, a: Any, b: Any, shape: int | Sequence[int] | None = None, dtype: Any = None) -> Tensor:
    """Beta(a, b) samples of `shape` (default a's and b's broadcast shape), as
    ``jax.random.beta``: the ratio of two log-gamma draws."""
    op = "beta"
    dims = shape
    if dims is None:
        dims = broadcast_shapes(*(x.shape if isinstance(x, Tensor) else () for x in (a, b)))
    alpha, dt = _alpha(key, a, dims, dtype, op)
    bb, _ = _alpha(key, b, dims, dtype, op)
    pair = split(key)
    log_a, log_b = _draw(pair[0], alpha, True), _draw(pair[1], bb, True)
    top = maximum(log_a, log_b)
    scaled_a, scaled_b = exp(log_a - top), exp(log_b - top)
    return scaled_a / (scaled_a + scaled_b)

