"""Reference values of the pooling family: MaxPool, AvgPool (2-D, 3-D), their Grad kernels,
MaxPoolWithArgmax, Dilation2D and its backprops. Written independently of the kernels: each
window tap is read with plain slicing of the padded input in a loop over the taps, the first
maximum is kept by a running strict comparison, and averages divide by a count of real elements
made by pooling a mask of ones. Few cases: attribute variants and an empty and a size-1 input on
float64, the first row on float32 (and float16), one small case in each other accepted dtype (the
half floats computed in float64 by the kit and cast back)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import float16, float32, float64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references._cover import with_every_dtype

Pairs = Sequence[tuple[int, int]]
Geometry = tuple[list[int], list[int], list[tuple[int, int]]]


def _full(ndim: int, fmt: str, spatial: Sequence[Any], fill: Any) -> list[Any]:
    first = 1 if fmt == "channels_last" else 2
    out = [fill] * ndim
    out[first:first + len(spatial)] = list(spatial)
    return out


def _taps(x: np.ndarray, window: Sequence[int], strides: Sequence[int], pad: Pairs, fill: float,
          dil: Sequence[int] | None = None) -> Iterator[tuple[int, tuple[slice, ...], np.ndarray]]:
    """(tap number, its slices of the padded input, the values there) for every window tap."""
    dil = dil or [1] * x.ndim
    padded = np.pad(x, pad, constant_values=fill)
    out = [(n + lo + hi - (k - 1) * d - 1) // s + 1
           for n, k, s, d, (lo, hi) in zip(x.shape, window, strides, dil, pad)]
    for t, tap in enumerate(itertools.product(*(range(k) for k in window))):
        index = tuple(slice(o * d, o * d + (m - 1) * s + 1, s) for o, d, m, s in zip(tap, dil, out, strides))
        yield t, index, padded[index]


def _geometry(x: np.ndarray, filter_size: Any, strides: Any, pad: Any,
              data_format: str = "channels_last") -> Geometry:
    return (_full(x.ndim, data_format, filter_size, 1), _full(x.ndim, data_format, strides, 1),
            _full(x.ndim, data_format, pad, (0, 0)))


def _first_max(x: np.ndarray, geo: Geometry, dil: Any = None,
               plus: Callable[[int], Any] = lambda t: 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of each window (of x + plus(tap)) and the first tap reaching it."""
    best = arg = np.empty(0)
    for t, _, v in _taps(x, geo[0], geo[1], geo[2], -np.inf, dil):
        v = v + plus(t)
        if t == 0:
            best, arg = v, np.zeros(v.shape, np.int64)
        else:
            better = v > best
            best, arg = np.where(better, v, best), np.where(better, t, arg)
    return best, arg


def _scatter(shape: Sequence[int], geo: Any, part: Callable[[int], np.ndarray],
             dil: Any = None) -> np.ndarray:
    window, strides, pad = geo
    padded = np.zeros([n + lo + hi for n, (lo, hi) in zip(shape, pad)])
    for t, index, _ in _taps(np.zeros(shape), window, strides, pad, 0.0, dil):  # (the slices only)
        padded[index] += part(t)
    return padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(shape, pad))]


def _sum(x: np.ndarray, geo: Geometry) -> np.ndarray:
    total = np.zeros(0)
    for t, _, v in _taps(x, geo[0], geo[1], geo[2], 0.0):
        total = v if t == 0 else total + v
    return total


def _count(x: np.ndarray, geo: Geometry) -> np.ndarray:
    return _sum(np.ones(x.shape), geo)


def _max_pool(x: np.ndarray, **attrs: Any) -> np.ndarray:
    return _first_max(x, _geometry(x, **attrs))[0]


def _avg_pool(x: np.ndarray, **attrs: Any) -> np.ndarray:
    geo = _geometry(x, **attrs)
    return _sum(x, geo) / _count(x, geo)


def _max_pool_grad(dy: np.ndarray, x: np.ndarray, y: np.ndarray, **attrs: Any) -> np.ndarray:
    geo = _geometry(x, **attrs)
    arg = _first_max(x, geo)[1]
    return _scatter(x.shape, geo, lambda t: np.where(arg == t, dy, 0.0))


def _avg_pool_grad(dy: np.ndarray, x: np.ndarray, **attrs: Any) -> np.ndarray:
    geo = _geometry(x, **attrs)
    share = dy / _count(x, geo)
    return _scatter(x.shape, geo, lambda t: share)


# (input shape, attributes): 2-D and 3-D, both layouts, VALID, SAME-like and uneven padding
_CL, _CF = "channels_last", "channels_first"
_TABLE: dict[int, list[tuple[tuple[int, ...], dict[str, Any]]]] = {
    2: [((1, 4, 4, 1), {"filter_size": (2, 2), "strides": (2, 2), "pad": ((0, 0), (0, 0)),
                        "data_format": _CL}),
        ((2, 5, 4, 3), {"filter_size": (3, 2), "strides": (2, 1), "pad": ((1, 1), (0, 1)),
                        "data_format": _CL}),
        ((1, 2, 3, 5), {"filter_size": (2, 3), "strides": (1, 2), "pad": ((1, 0), (1, 1)),
                        "data_format": _CF})],
    3: [((1, 2, 3, 2, 1), {"filter_size": (2, 2, 1), "strides": (1, 1, 1), "pad": ((0, 0),) * 3,
                           "data_format": _CL}),
        ((1, 2, 4, 3, 3), {"filter_size": (2, 2, 2), "strides": (2, 1, 2), "pad": ((0, 1), (1, 0), (1, 1)),
                           "data_format": _CF})],
}
for _r, _rows in _TABLE.items():  # an empty batch and a size-1 input, 1-wide windows
    _ones = {"filter_size": (1,) * _r, "strides": (1,) * _r, "pad": ((0, 0),) * _r, "data_format": _CL}
    _rows += [((0,) + (2,) * _r + (1,), _ones), ((1,) * (_r + 2), _ones)]


def _rank(spec: KernelSpec) -> int:
    return 3 if "3D" in spec.name else 2


def _pool_cases(spec: KernelSpec) -> list[Case]:
    """The first table row on float32 and float16 (forward kernels) too; every row on float64."""
    table, grad = _TABLE[_rank(spec)], spec.name.endswith("Grad")
    out = []
    for d in (float64, float32) if grad else (float64, float32, float16):
        for i, (shape, attrs) in enumerate(table if d is float64 else table[:1]):
            x = sample(shape, d, key=(spec.name, i))
            if not grad:
                out.append(Case((x,), attrs))
                continue
            y = _max_pool(x.astype(np.float64), **attrs).astype(d.numpy)
            dy = sample(y.shape, d, key=(spec.name, i, "dy"))
            out.append(Case((dy, x, y) if "Max" in spec.name else (dy, x), attrs))
    return with_every_dtype(spec, out)


def _pool_bad(spec: KernelSpec) -> list[BadCase]:
    rank = _rank(spec)
    x = sample((1,) + (4,) * rank + (1,), float32)
    attrs = {"filter_size": (5,) * rank, "strides": (1,) * rank, "pad": ((0, 0),) * rank}
    if spec.name.endswith("Grad"):
        inputs: tuple[np.ndarray, ...] = (x, x, x) if "Max" in spec.name else (x, x)
        return [BadCase(inputs, {**attrs, "filter_size": (2,) * rank}, error=ShapeError,
                        why="dy of the input's shape, not the pooled one")]
    return [BadCase((x,), attrs, error=ShapeError, why="a window larger than the input"),
            BadCase((x,), {**attrs, "filter_size": (2,) * rank, "pad": ((2, 0),) * rank}, error=ShapeError,
                    why="a pad as wide as the window")]


for _suffix in ("", "3D"):
    reference(f"MaxPool{_suffix}", _pool_cases, _pool_bad)(_max_pool)
    reference(f"AvgPool{_suffix}", _pool_cases, _pool_bad)(_avg_pool)
    reference(f"MaxPool{_suffix}Grad", _pool_cases, _pool_bad)(_max_pool_grad)
    reference(f"AvgPool{_suffix}Grad", _pool_cases, _pool_bad)(_avg_pool_grad)


def _argmax_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in (float64, float32):
        for i, (shape, attrs) in enumerate(_TABLE[2][:2] + _TABLE[2][-2:] if d is float64 else _TABLE[2][:1]):
            window = {k: attrs[k] for k in ("filter_size", "strides", "pad")}
            x = sample(shape, d, key=(spec.name, i))
            out += [Case((x,), {**window, "include_batch_in_index": b}) for b in (False, True)]
    return with_every_dtype(spec, out)


@reference("MaxPoolWithArgmax", _argmax_cases)
def _max_pool_with_argmax(x: np.ndarray, include_batch_in_index: bool,
                          **attrs: Any) -> tuple[np.ndarray, ...]:
    geo = _geometry(x, **attrs)
    best, arg = _first_max(x, geo)
    index = np.zeros(best.shape, np.int64)
    taps = list(itertools.product(*(range(k) for k in geo[0])))
    rows = [np.arange(m).reshape([-1 if a == i else 1 for a in range(x.ndim)])
            for i, m in enumerate(best.shape)]
    for t, tap in enumerate(taps):
        coords = [r * s - lo + o for r, s, (lo, _), o in zip(rows, geo[1], geo[2], tap)]
        if not include_batch_in_index:
            coords[0] = coords[0] * 0
        flat = np.ravel_multi_index(np.broadcast_arrays(*coords), x.shape, mode="clip")
        index = np.where(arg == t, flat, index)
    return best, index


# -- Dilation2D ---------------------------------------------------------------------------------
_DILATION = [((1, 4, 4, 1), (2, 2, 1), {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)}),
             ((2, 5, 6, 2), (2, 3, 2), {"strides": (1, 2), "pad": ((1, 1), (2, 1)), "dilations": (2, 1)}),
             ((0, 3, 3, 1), (1, 1, 1), {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)}),
             ((1, 1, 1, 1), (1, 1, 1), {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)})]


def _dilation_first_max(x: np.ndarray, f: np.ndarray, attrs: Any) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    geo: Geometry = ([1, f.shape[0], f.shape[1], 1], [1, *attrs["strides"], 1],
                     [(0, 0), *attrs["pad"], (0, 0)])
    dil = [1, *attrs["dilations"], 1]
    flat = f.reshape(-1, f.shape[2])
    best, arg = _first_max(x, geo, dil, lambda t: flat[t])
    return best, arg, geo, dil


def _dilation_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in (float64, float32):
        for i, (xs, fs, attrs) in enumerate(_DILATION if d is float64 else _DILATION[:1]):
            x, f = sample(xs, d, key=(spec.name, i, "x")), sample(fs, d, key=(spec.name, i, "f"))
            if spec.name == "Dilation2D":
                out.append(Case((x, f), attrs))
                continue
            y = _dilation2d(x.astype(np.float64), f.astype(np.float64), **attrs)
            out.append(Case((x, f, sample(y.shape, d, key=(spec.name, i, "dy"))), attrs))
    return with_every_dtype(spec, out)


def _dilation_bad(spec: KernelSpec) -> list[BadCase]:
    x, f = sample((1, 4, 4, 2), float32), sample((2, 2, 3), float32)
    attrs = {"strides": (1, 1), "pad": ((0, 0), (0, 0)), "dilations": (1, 1)}
    inputs = (x, f) if spec.name == "Dilation2D" else (x, f, x)
    return [BadCase(inputs, attrs, error=ShapeError, why="a filter of another channel count")]


@reference("Dilation2D", _dilation_cases, _dilation_bad)
def _dilation2d(x: np.ndarray, f: np.ndarray, **attrs: Any) -> np.ndarray:
    return _dilation_first_max(x, f, attrs)[0]


@reference("Dilation2DBackpropInput", _dilation_cases, _dilation_bad)
def _dilation2d_backprop_input(x: np.ndarray, f: np.ndarray, dy: np.ndarray, **attrs: Any) -> np.ndarray:
    _, arg, geo, dil = _dilation_first_max(x, f, attrs)
    return _scatter(x.shape, geo, lambda t: np.where(arg == t, dy, 0.0), dil)


@reference("Dilation2DBackpropFilter", _dilation_cases, _dilation_bad)
def _dilation2d_backprop_filter(x: np.ndarray, f: np.ndarray, dy: np.ndarray, **attrs: Any) -> np.ndarray:
    _, arg, _, _ = _dilation_first_max(x, f, attrs)
    taps = [np.where(arg == t, dy, 0.0).sum(axis=(0, 1, 2)) for t in range(f.shape[0] * f.shape[1])]
    return np.stack(taps).reshape(f.shape)
