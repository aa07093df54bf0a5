"""``tp.nn.initializers``: functions that make a parameter's first values, with JAX's names and
semantics (``jax.nn.initializers``), drawn from a random key or an explicit integer seed.

Each factory (``normal(stddev=0.01)``, ``glorot_uniform()``, ...) returns an ``Initializer``,
called as JAX's, ``init(key, shape, dtype=tp.float32)``, or as ``init(shape, dtype, key=key)``
or ``init(shape, dtype, seed=0)``; ``zeros`` and ``ones`` are initializers themselves, as in
JAX. The random ones need exactly one of a key and a seed (tensorplug keeps no global random
state). With a key (``tp.random.key(0)``) they draw through tp.random's key distributions as
JAX does: the same key gives the same values on every backend and, to float rounding, JAX's
own. With a seed they draw through ``tp.random.uniform(shape, seed=)`` and ``normal``: the same
seed gives the same values on one backend, and each backend's stream is its own (numpy's
Generator, jax.random's threefry), so values differ between backends while their distribution
does not. The constant ones take and ignore a key or a seed.

Fans are JAX's, for kernels laid out (..., in, out): the receptive field is the product of the
other axes, which fits tensorplug's HWIO convolution filters (as TF/Keras's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, bfloat16, float16, float32
from tensorplug.errors import ArgumentError, HyperparameterError, ShapeError
from tensorplug.families._common.convert import astype
from tensorplug.families.creation import key_samplers
from tensorplug.families.creation.ops import full, new_shape
from tensorplug.families.creation.random import normal as _normal
from tensorplug.families.creation.random import uniform as _uniform
from tensorplug.families.decompositions.ops import qr
from tensorplug.families.elementwise.ops import sign
from tensorplug.families.linalg.matrix_functions import diagonal
from tensorplug.families.manipulation.ops import matrix_transpose, moveaxis, reshape
from tensorplug.models.initializer_arguments import arguments as _arguments
from tensorplug.models.initializer_arguments import checked_seed as _seed
from tensorplug.models.initializer_arguments import in_dtype as _in
from tensorplug.models.initializer_arguments import random_call as _random_call
from tensorplug.models.normal_quantiles import truncated_normal_samples

__all__ = [
    "Initializer", "constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
    "orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal",
    "xavier_uniform", "zeros",
]

#: the stddev of a unit normal truncated to [-2, 2], as JAX divides by it
TRUNCATED_STDDEV = 0.87962566103423978
MODES = ("fan_in", "fan_out", "fan_avg")
DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


class Initializer(Protocol):
    """What every initializer is: ``init(key, shape, dtype=tp.float32)``, or
    ``init(shape, dtype=tp.float32, *, seed=None, key=None)`` -> a Tensor of that shape and
    dtype on the active backend."""

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor: ...


class _Settings:
    """An initializer's settings as attributes (`__slots__`), shown by its repr. (Plain classes,
    not dataclasses: six of those cost ``import tensorplug`` ~2 ms.)"""

    __slots__: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__.lstrip('_')}({shown})"


def _non_negative(value: Any, name: str, arg: str) -> float:
    """`value` as a float >= 0; HyperparameterError naming the initializer and `arg` otherwise."""
    number = float(valid.number(value, name, arg))
    if not number >= 0:
        raise HyperparameterError(f"{name}: {arg} must be >= 0, got {value!r}.")
    return number


class _Constant(_Settings):
    __slots__ = ("value", "name")

    def __init__(self, value: float, name: str = "constant") -> None:
        self.value = value
        self.name = name

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """A tensor of `shape` filled with the value (a `seed` or key, if given, is checked and unused)."""
        shape, dtype, seed, key = _arguments(self.name, args, dtype, seed, key)
        if seed is not None:
            _seed(seed, self.name)
        return full(new_shape(shape, self.name), self.value, dtype=valid.dtype(dtype, self.name))


class _Uniform(_Settings):
    __slots__ = ("scale",)

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """Samples uniform in [0, scale) (from a key: JAX's ``uniform(key, shape) * scale``)."""
        dims, dt, s = _random_call("uniform", args, dtype, seed, key)
        if isinstance(s, Tensor):
            return key_samplers.uniform(s, dims, dt) * _in(self.scale, dt)
        return _uniform(dims, seed=s, low=0.0, high=self.scale, dtype=dt)


class _Normal(_Settings):
    __slots__ = ("stddev",)

    def __init__(self, stddev: float) -> None:
        self.stddev = stddev

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """Normal samples of mean 0 and the stddev."""
        dims, dt, s = _random_call("normal", args, dtype, seed, key)
        if isinstance(s, Tensor):
            return key_samplers.normal(s, dims, dt) * _in(self.stddev, dt)
        return _normal(dims, seed=s, stddev=self.stddev, dtype=dt)


class _TruncatedNormal(_Settings):
    __slots__ = ("stddev", "lower", "upper")

    def __init__(self, stddev: float, lower: float, upper: float) -> None:
        self.stddev = stddev
        self.lower = lower
        self.upper = upper

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """stddev times unit normal samples truncated to [lower, upper]."""
        dims, dt, s = _random_call("truncated_normal", args, dtype, seed, key)
        if isinstance(s, Tensor):
            return key_samplers.truncated_normal(s, self.lower, self.upper, dims, dt) * _in(self.stddev, dt)
        return truncated_normal_samples(dims, s, self.lower, self.upper, dt, self.stddev)


#: zeros of the shape and dtype asked (an initializer, as ``jax.nn.initializers.zeros``)
zeros: Initializer = _Constant(0.0, "zeros")
#: ones of the shape and dtype asked (an initializer, as ``jax.nn.initializers.ones``)
ones: Initializer = _Constant(1.0, "ones")


def constant(value: float) -> Initializer:
    """An initializer filling every element with `value` (a real number)."""
    return _Constant(float(valid.number(value, "constant", "value")))


def uniform(scale: float = 1e-2) -> Initializer:
    """An initializer of samples uniform in [0, scale) (JAX's ``uniform``); `scale` >= 0."""
    return _Uniform(_non_negative(scale, "uniform", "scale"))


def normal(stddev: float = 1e-2) -> Initializer:
    """An initializer of normal samples of mean 0 and `stddev` (>= 0)."""
    return _Normal(_non_negative(stddev, "normal", "stddev"))


def truncated_normal(stddev: float = 1e-2, lower: float = -2.0, upper: float = 2.0) -> Initializer:
    """An initializer of `stddev` times unit normal samples truncated to [lower, upper] (so the
    values lie in [lower * stddev, upper * stddev]; their stddev is below `stddev`)."""
    stddev = _non_negative(stddev, "truncated_normal", "stddev")
    lo = float(valid.number(lower, "truncated_normal", "lower"))
    hi = float(valid.number(upper, "truncated_normal", "upper"))
    if not lo < hi:
        raise HyperparameterError(f"truncated_normal: lower must be below upper, got lower={lower!r}, "
                                  f"upper={upper!r}.")
    return _TruncatedNormal(stddev, lo, hi)


def _axes(axis: int | Sequence[int], rank: int, name: str, arg: str) -> list[int]:
    """`axis` (one or several) as non-negative axes of a shape of `rank`; ShapeError otherwise."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not -rank <= valid.integer(a, name, arg) < rank:
            raise ShapeError(f"{name}: {arg}={axis!r} is out of range for a shape of rank {rank}.")
    return [a % rank for a in axes]


def compute_fans(shape: tuple[int, ...], name: str, in_axis: int | Sequence[int] = -2,
                 out_axis: int | Sequence[int] = -1,
                 batch_axis: int | Sequence[int] = ()) -> tuple[float, float]:
    """(fan_in, fan_out) of a kernel of `shape`, as JAX: the in (out) axes' sizes times the
    receptive field, the product of the axes that are neither in, out nor batch axes."""
    if len(shape) < 2:
        raise ShapeError(f"{name}: needs a shape of rank >= 2 to compute fans (a kernel "
                         f"(..., in, out)), got {valid.shown_shape(shape)}; use zeros, constant "
                         f"or normal for a bias.")
    ins = _axes(in_axis, len(shape), name, "in_axis")
    outs = _axes(out_axis, len(shape), name, "out_axis")
    batch = _axes(batch_axis, len(shape), name, "batch_axis")
    receptive = math.prod(d for i, d in enumerate(shape) if i not in {*ins, *outs, *batch})
    return (math.prod(shape[i] for i in ins) * receptive, math.prod(shape[i] for i in outs) * receptive)


Axes = int | tuple[int, ...]


class _VarianceScaling(_Settings):
    __slots__ = ("scale", "mode", "distribution", "in_axis", "out_axis", "batch_axis", "name")

    def __init__(self, scale: float, mode: str, distribution: str, in_axis: Axes, out_axis: Axes,
                 batch_axis: Axes, name: str) -> None:
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.in_axis = in_axis
        self.out_axis = out_axis
        self.batch_axis = batch_axis
        self.name = name

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """Samples of variance scale / fan (fan by the mode) from the distribution."""
        dims, dt, s = _random_call(self.name, args, dtype, seed, key)
        fan_in, fan_out = compute_fans(dims, self.name, self.in_axis, self.out_axis, self.batch_axis)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        if fan == 0:
            raise ShapeError(f"{self.name}: {self.mode} is 0 for the shape {valid.shown_shape(dims)}; "
                             f"a kernel needs sizes >= 1 on its in and out axes.")
        variance = self.scale / fan
        if isinstance(s, Tensor):
            return _scaled_from_key(s, dims, dt, variance, self.distribution)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return _uniform(dims, seed=s, low=-limit, high=limit, dtype=dt)
        if self.distribution == "normal":
            return _normal(dims, seed=s, stddev=math.sqrt(variance), dtype=dt)
        stddev = math.sqrt(variance) / TRUNCATED_STDDEV
        return truncated_normal_samples(dims, s, -2.0, 2.0, dt, stddev)


def _scaled_from_key(key: Tensor, dims: tuple[int, ...], dt: DType, variance: float,
                     distribution: str) -> Tensor:
    """variance_scaling's draw from a key, as JAX computes it (its constants in `dt`)."""
    var = np.array(variance, dt.numpy)
    if distribution == "uniform":
        return key_samplers.uniform(key, dims, dt, -1.0, 1.0) * float(np.sqrt(3 * var))
    if distribution == "normal":
        return key_samplers.normal(key, dims, dt) * float(np.sqrt(var))
    stddev = float(np.sqrt(var) / np.array(TRUNCATED_STDDEV, dt.numpy))
    return key_samplers.truncated_normal(key, -2.0, 2.0, dims, dt) * stddev


def _axis_arg(axis: int | Sequence[int]) -> int | tuple[int, ...]:
    return axis if isinstance(axis, int) else tuple(axis)


def variance_scaling(scale: float, mode: str, distribution: str, in_axis: int | Sequence[int] = -2,
                     out_axis: int | Sequence[int] = -1, batch_axis: int | Sequence[int] = (),
                     *, name: str = "variance_scaling") -> Initializer:
    """An initializer of variance scale / fan, fan by `mode` ("fan_in", "fan_out", "fan_avg")
    over `distribution`: "truncated_normal" (in [-2, 2] stddevs, the stddev divided by the
    truncated unit normal's, 0.8796...), "normal", or "uniform" (in [-limit, limit), limit =
    sqrt(3 variance)); as ``jax.nn.initializers.variance_scaling``. Shapes need rank >= 2."""
    scale = _non_negative(scale, name, "scale")
    if mode not in MODES:
        raise HyperparameterError(f"{name}: mode must be one of {', '.join(MODES)}; got {mode!r}.")
    if distribution not in DISTRIBUTIONS:
        raise HyperparameterError(f"{name}: distribution must be one of {', '.join(DISTRIBUTIONS)}; "
                                  f"got {distribution!r}.")
    return _VarianceScaling(scale, mode, distribution, _axis_arg(in_axis), _axis_arg(out_axis),
                            _axis_arg(batch_axis), name)


def glorot_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                   batch_axis: int | Sequence[int] = ()) -> Initializer:
    """Glorot (Xavier) uniform: variance 1 / fan_avg, uniform in [-limit, limit)."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis,
                            name="glorot_uniform")


def glorot_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = ()) -> Initializer:
    """Glorot (Xavier) normal: variance 1 / fan_avg, truncated normal."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                            name="glorot_normal")


def he_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
               batch_axis: int | Sequence[int] = ()) -> Initializer:
    """He (Kaiming) uniform: variance 2 / fan_in, uniform in [-limit, limit)."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis,
                            name="he_uniform")


def he_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
              batch_axis: int | Sequence[int] = ()) -> Initializer:
    """He (Kaiming) normal: variance 2 / fan_in, truncated normal."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            name="he_normal")


def lecun_uniform(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = ()) -> Initializer:
    """LeCun uniform: variance 1 / fan_in, uniform in [-limit, limit)."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis,
                            name="lecun_uniform")


def lecun_normal(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                 batch_axis: int | Sequence[int] = ()) -> Initializer:
    """LeCun normal: variance 1 / fan_in, truncated normal."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            name="lecun_normal")


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


class _Orthogonal(_Settings):
    __slots__ = ("scale", "column_axis")

    def __init__(self, scale: float, column_axis: int) -> None:
        self.scale = scale
        self.column_axis = column_axis

    def __call__(self, *args: Any, dtype: Any = ..., seed: int | None = None,
                 key: Tensor | None = None) -> Tensor:
        """scale times a matrix with orthonormal columns (rows if fewer), reshaped to `shape`."""
        dims, dt, s = _random_call("orthogonal", args, dtype, seed, key)
        if len(dims) < 2:
            raise ShapeError(f"orthogonal: needs a shape of rank >= 2, got {valid.shown_shape(dims)}.")
        axis = _axes(self.column_axis, len(dims), "orthogonal", "column_axis")[0]
        n_cols = dims[axis]
        n_rows = math.prod(dims) // n_cols if n_cols else 0
        if n_rows == 0 or n_cols == 0:
            return full(dims, 0.0, dtype=dt)
        work = float32 if dt in (float16, bfloat16) else dt
        matrix = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        a = (key_samplers.normal(s, matrix, work) if isinstance(s, Tensor)
             else _normal(matrix, seed=s, dtype=work))
        q, r = qr(a)
        q = q * sign(diagonal(r))
        if n_rows < n_cols:
            q = matrix_transpose(q)
        rest = tuple(d for i, d in enumerate(dims) if i != axis)
        q = moveaxis(reshape(q, (*rest, n_cols)), -1, axis) * self.scale
        return q if work == dt else astype(q, dt)


def orthogonal(scale: float = 1.0, column_axis: int = -1) -> Initializer:
    """An initializer of `scale` times an orthogonal matrix (QR of a normal matrix, signs fixed
    by R's diagonal, as JAX): the shape flattened to (rows, shape[column_axis]) has orthonormal
    columns, or orthonormal rows when it has fewer rows than columns. Shapes need rank >= 2.
    From a key it is JAX's to float rounding in float32 and float64; float16 and bfloat16 draw
    and factor in float32 (JAX in the dtype itself), so their values differ from JAX's there."""
    if isinstance(column_axis, bool) or not isinstance(column_axis, int):
        raise ArgumentError(f"orthogonal: column_axis must be an int, got {valid.shown(column_axis)}.")
    return _Orthogonal(float(valid.number(scale, "orthogonal", "scale")), column_axis)
