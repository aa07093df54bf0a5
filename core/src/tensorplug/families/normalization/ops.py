"""Normalization ops, public in ``tp.nn``: batch_norm (inference: the FusedBatchNorm kernel),
batch_norm_train (batch moments, and the moving averages returned, never mutated: Flax's
functional BatchNorm), moments, layer_norm and local_response_normalization (the LRN kernel)."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, DTypeError, ShapeError
from tensorplug.families._common.convert import astype, caller, scalar_tensor, to_float
from tensorplug.families.elementwise.ops import square, subtract
from tensorplug.families.manipulation.ops import reshape, squeeze
from tensorplug.families.normalization.spec import batch_norm_shape
from tensorplug.families.reductions.ops import mean as _mean
from tensorplug.kernels.shape_rules import normalize_axes, normalize_axis

__all__ = ["batch_norm", "batch_norm_train", "layer_norm", "local_response_normalization", "moments"]

_FUSED_BATCH_NORM = caller("FusedBatchNorm")
_LRN = caller("LRN")


def _floating(x: Any, op: str) -> Tensor:
    """x as a real floating tensor (integers and bools to the default float)."""
    x = to_float(x)
    if x._dtype.is_complex:
        raise DTypeError(f"{op}: x must be real, got {x._dtype.name}; normalize its real and imaginary "
                         "parts separately.")
    return x


def _epsilon(value: Any, op: str) -> float:
    eps = float(valid.number(value, op, "epsilon"))
    if not 0 <= eps < float("inf"):  # (NaN fails too)
        raise ShapeError(f"{op}: epsilon must be a finite number >= 0, got {eps}.")
    return eps


def _param(value: Any, like: Tensor, default: float) -> Tensor:
    """A parameter in x's dtype; None is `default` (a 0-d tensor)."""
    if value is None:
        return scalar_tensor(default, like._dtype)
    return astype(to_float(value), like._dtype, copy=False)


def _normalize(op: str, x: Tensor, mean: Any, variance: Any, offset: Any, scale: Any, epsilon: Any) -> Tensor:
    params = {"scale": _param(scale, x, 1.0), "offset": _param(offset, x, 0.0),
              "mean": _param(mean, x, 0.0), "variance": _param(variance, x, 1.0)}
    batch_norm_shape(x.shape, {n: p.shape for n, p in params.items()}, op)
    return _FUSED_BATCH_NORM((x, *params.values()), {"epsilon": _epsilon(epsilon, op)})


def batch_norm(x: Any, mean: Any, variance: Any, offset: Any = None, scale: Any = None,
               epsilon: float = 1e-3) -> Tensor:
    """(x - mean) * scale / sqrt(variance + epsilon) + offset (TF.js's batchNorm): the
    parameters broadcast against x (shape (C,) for channels last); offset None is 0, scale
    None is 1."""
    return _normalize("batch_norm", _floating(x, "batch_norm"), mean, variance, offset, scale, epsilon)


def moments(x: Any, axes: int | tuple[int, ...] | None = None,
            keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """(mean, variance) of x over `axes` (all if None), the variance biased (divided by the
    count), computed about the mean (two passes, stable)."""
    x = _floating(x, "moments")
    keep = valid.flag(keepdims, "moments", "keepdims")
    axes_t = normalize_axes(axes, x.ndim, "moments")
    mean = _mean(x, axis=axes_t, keepdims=True)
    variance = _mean(square(subtract(x, mean)), axis=axes_t, keepdims=keep)
    return (mean if keep else squeeze(mean, axes_t)), variance


def _channel_shape(ndim: int, axis: int) -> tuple[int, ...]:
    return tuple(-1 if a == axis else 1 for a in range(ndim))


def batch_norm_train(x: Any, running_mean: Any, running_variance: Any, offset: Any = None,
                     scale: Any = None, *, axis: int = -1, momentum: float = 0.99,
                     epsilon: float = 1e-3) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization in training: normalize x with the mean and (biased) variance of the
    batch over every axis but the channel `axis`, and return (y, new running mean, new running
    variance), each new average momentum * old + (1 - momentum) * batch's (Flax's rule). The
    running statistics, offset and scale have one value per channel (shape (C,))."""
    op = "batch_norm_train"
    x = _floating(x, op)
    if not x.ndim:
        raise ShapeError(f"{op}: x must have a channel axis, got a 0-d tensor.")
    ax = normalize_axis(axis, x.ndim, op)
    m = float(valid.number(momentum, op, "momentum"))
    if not 0 <= m <= 1:
        raise ShapeError(f"{op}: momentum must be in [0, 1], got {m}.")
    channels = x.shape[ax]
    stats = {"running_mean": _param(running_mean, x, 0.0),
             "running_variance": _param(running_variance, x, 1.0)}
    for name, value in (("offset", offset), ("scale", scale)):
        if value is not None:
            stats[name] = _param(value, x, 0.0)
    for name, t in stats.items():
        if t.shape != (channels,):
            raise ShapeError(f"{op}: {name} has shape {t.shape}; it must hold one value per channel: "
                             f"shape ({channels},) for axis {axis} of x's shape {x.shape}.")
    mean, variance = moments(x, tuple(a for a in range(x.ndim) if a != ax))
    shape = _channel_shape(x.ndim, ax)

    def along(t: Tensor | None) -> Tensor | None:
        return None if t is None else reshape(t, shape)

    y = _normalize(op, x, along(mean), along(variance), along(stats.get("offset")),
                   along(stats.get("scale")), epsilon)
    new_mean = stats["running_mean"] * m + mean * (1.0 - m)
    new_variance = stats["running_variance"] * m + variance * (1.0 - m)
    return y, new_mean, new_variance


def layer_norm(x: Any, scale: Any = None, offset: Any = None, axis: int | tuple[int, ...] = -1,
               epsilon: float = 1e-5) -> Tensor:
    """x normalized over `axis` (mean 0, variance 1, computed about the mean), then scaled
    and offset: scale and offset broadcast against x (shape x.shape[-1:] for axis=-1); None
    leaves them out."""
    x = _floating(x, "layer_norm")
    if axis is None:
        raise ArgumentError("layer_norm: axis must be an int or a tuple of ints, got None.")
    axes = normalize_axes(axis, x.ndim, "layer_norm")
    mean, variance = moments(x, axes, keepdims=True)
    return _normalize("layer_norm", x, mean, variance, offset, scale, epsilon)


def local_response_normalization(x: Any, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                                 beta: float = 0.5) -> Tensor:
    """x / (bias + alpha * sum(x[..., c - depth_radius:c + depth_radius + 1] ** 2)) ** beta,
    over the last (channel) axis (TF's local_response_normalization; defaults TF's)."""
    op = "local_response_normalization"
    x = _floating(x, op)
    if not x.ndim:
        raise ShapeError(f"{op}: x must have a channel (last) axis, got a 0-d tensor.")
    attrs = {"depth_radius": valid.size(depth_radius, op, "depth_radius")}
    for name, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
        v = float(valid.number(value, op, name))
        if v != v or v in (float("inf"), float("-inf")):
            raise ShapeError(f"{op}: {name} must be finite, got {v}.")
        attrs[name] = v  # type: ignore[assignment]
    return _LRN((x,), attrs)
