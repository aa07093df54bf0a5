"""Reference values of the convolution kernels (Conv2D, Conv3D and their backprop kernels),
written from the definition and independently of any backend's kernel: a sum over the
filter's taps, each tap one einsum of a strided slice of the padded input with the tap's
(in / groups, out) matrix; the input's gradient scatters those products back, the filter's
gradient contracts the slices with dy.

One table of geometries serves the three kernels of a rank (each takes its own pair of
inputs from a row: x and filter, dy and filter, x and dy); few rows, in float64 (float32 and
the half floats on one or two rows: ``_ROW_DTYPES``), small enough that the kit's gradient check finds
cases of <= 40 elements. A convolution takes no 0-d input.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import bfloat16, float16, float32, float64
from tensorplug.errors import ShapeError
from tensorplug.families.convolution.spec import KERNEL_NAMES, conv_output_shape
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, sample
from tensorplug.testing.references._base import reference

Pairs = Sequence[tuple[int, int]]

#: rows of (x shape, filter shape, attrs), by spatial rank
_TABLE: dict[int, list[tuple[tuple[int, ...], tuple[int, ...], dict[str, Any]]]] = {
    2: [((1, 3, 3, 1), (2, 2, 1, 2), {}),
        ((1, 4, 3, 1), (2, 2, 1, 1), {"strides": (2, 1), "padding": ((1, 0), (0, 1))}),
        ((1, 2, 3, 2), (2, 2, 1, 2), {"groups": 2}),
        ((1, 2, 3, 3), (1, 2, 2, 2), {"dilations": (1, 2), "data_format": "NCHW"}),
        ((2, 5, 4, 4), (3, 2, 2, 6), {"strides": (2, 1), "padding": ((1, 1), (0, 1)), "dilations": (1, 2),
                                      "groups": 2}),
        ((2, 4, 5, 5), (3, 3, 2, 4), {"strides": 2, "padding": ((1, 1), (1, 1)), "groups": 2,
                                      "data_format": "NCHW"}),
        ((0, 3, 3, 2), (2, 2, 2, 1), {}), ((1, 1, 1, 1), (1, 1, 1, 1), {})],
    3: [((1, 2, 2, 3, 1), (1, 2, 2, 1, 2), {}),
        ((1, 3, 2, 2, 2), (2, 1, 2, 1, 2), {"strides": (2, 1, 1), "padding": ((1, 0), (0, 0), (0, 1)),
                                            "groups": 2}),
        ((2, 2, 4, 3, 3), (2, 2, 2, 1, 2), {"dilations": (1, 2, 1), "groups": 2, "data_format": "NCDHW"}),
        ((1, 4, 3, 4, 2), (2, 2, 3, 2, 3), {"strides": (1, 2, 1), "padding": ((0, 1), (1, 1), (1, 0))}),
        ((0, 2, 2, 2, 1), (1, 1, 1, 1, 2), {}), ((1, 1, 1, 1, 1), (1, 1, 1, 1, 1), {})],
}
#: the dtypes of a row (each new one costs a compilation on a compiling backend): float64 for
#: every row (the gradient checks' dtype), float32 for the widest geometry too, the half floats
#: on the tiny first row only
_ROW_DTYPES = {rank: {0: (float64, float32, float16, bfloat16), widest: (float64, float32)}
               for rank, widest in ((2, 4), (3, 3))}


def _geometry(rank: int, attrs: dict[str, Any]) -> tuple[Any, ...]:
    full = {"strides": 1, "padding": ((0, 0),) * rank, "dilations": 1, "groups": 1,
            "data_format": "NHWC" if rank == 2 else "NDHWC", **attrs}
    per_dim = [(v,) * rank if isinstance(v, int) else v for v in (full["strides"], full["dilations"])]
    return per_dim[0], full["padding"], per_dim[1], full["groups"], full["data_format"]


def _cases(rank: int, which: int) -> Callable[[KernelSpec], list[Case]]:
    """The table as cases of the forward kernel (which=0), the input's (1) or the filter's (2)
    gradient."""
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for i, (xs, ws, attrs) in enumerate(_TABLE[rank]):
            ys = conv_output_shape(xs, ws, *_geometry(rank, attrs))
            for dtype in _ROW_DTYPES[rank].get(i, (float64,)):
                x, w, dy = (sample(s, dtype, key=(spec.name, i, k)) for k, s in enumerate((xs, ws, ys)))
                if which == 0:
                    out.append(Case((x, w), attrs))
                elif which == 1:
                    out.append(Case((dy, w), {"input_shape": xs, **attrs}))
                else:
                    out.append(Case((x, dy), {"filter_shape": ws, **attrs}))
        return out
    return cases


def _bad(rank: int, which: int) -> Callable[[KernelSpec], list[BadCase]]:
    def cases(spec: KernelSpec) -> list[BadCase]:
        n = (1,) * (rank - 1)
        x, w = sample((1, *n, 4, 4), float32), sample((*n, 2, 2, 3), float32)
        wide = sample((*n, 5, 4, 3), float32)
        dy = sample((1, *n, 3, 3), float32)
        if which == 0:
            return [BadCase((x, w), {}, error=ShapeError, why="a filter taking 2 channels of an input of 4"),
                    BadCase((x, w), {"groups": 2}, error=ShapeError, why="3 output channels in 2 groups"),
                    BadCase((x, wide), {}, error=ShapeError, why="a filter wider than the input")]
        if which == 1:
            return [BadCase((dy, w), {"input_shape": (1, *n, 4, 4)}, error=ShapeError,
                            why="an input shape whose channels the filter does not take"),
                    BadCase((sample((1, *n, 2, 3), float32), sample((*n, 2, 4, 3), float32)),
                            {"input_shape": (1, *n, 4, 4)}, error=ShapeError, why="dy of the wrong shape")]
        return [BadCase((x, sample((1, *n, 2, 3), float32)), {"filter_shape": (*n, 2, 4, 3)},
                        error=ShapeError, why="dy of the wrong shape")]
    return cases


# -- the definition, channels-last -----------------------------------------------------------------
def _last(a: np.ndarray, fmt: str) -> np.ndarray:
    return np.moveaxis(a, 1, -1) if fmt[1] == "C" else a


def _first(a: np.ndarray, fmt: str) -> np.ndarray:
    return np.moveaxis(a, -1, 1) if fmt[1] == "C" else a


def _taps(kernel: Sequence[int], out: Sequence[int], strides: Sequence[int],
          dilations: Sequence[int]) -> Any:
    """(tap, the slices of the padded input that tap reads for every output position)."""
    for tap in itertools.product(*(range(k) for k in kernel)):
        yield tap, (slice(None), *(slice(t * d, t * d + (o - 1) * s + 1, s)
                                   for t, o, s, d in zip(tap, out, strides, dilations)))


def _grouped_filter(w: np.ndarray, tap: tuple[int, ...], groups: int) -> np.ndarray:
    per_group, out = w.shape[-2:]
    return w[tap].reshape(per_group, groups, out // groups)  # (c, g, o)


def _pad(x: np.ndarray, padding: Pairs) -> np.ndarray:
    return np.pad(x, ((0, 0), *padding, (0, 0)))


def _conv_ref(x: np.ndarray, w: np.ndarray, strides: Any, padding: Pairs, dilations: Any, groups: int,
              data_format: str) -> np.ndarray:
    rank = len(strides)
    xl = _pad(_last(x, data_format), padding)
    sizes = tuple((n - (k - 1) * d - 1) // s + 1
                  for n, k, s, d in zip(xl.shape[1:-1], w.shape, strides, dilations))
    out_shape = (xl.shape[0], *sizes, w.shape[-1])
    y = np.zeros((*out_shape[:-1], groups, out_shape[-1] // groups))
    for tap, where in _taps(w.shape[:rank], out_shape[1:-1], strides, dilations):
        part = xl[where].reshape(*out_shape[:-1], groups, w.shape[-2])
        y += np.einsum("...gc,cgo->...go", part, _grouped_filter(w, tap, groups))
    return _first(y.reshape(out_shape), data_format)


def _input_ref(dy: np.ndarray, w: np.ndarray, input_shape: tuple[int, ...], strides: Any, padding: Pairs,
               dilations: Any, groups: int, data_format: str) -> np.ndarray:
    rank = len(strides)
    dyl = _last(dy, data_format)
    shape = _last(np.empty(input_shape, np.bool_), data_format).shape
    dx = np.zeros(_pad(np.empty(shape, np.bool_), padding).shape)
    grouped = dyl.reshape(*dyl.shape[:-1], groups, dyl.shape[-1] // groups)
    for tap, where in _taps(w.shape[:rank], dyl.shape[1:-1], strides, dilations):
        part = np.einsum("...go,cgo->...gc", grouped, _grouped_filter(w, tap, groups))
        dx[where] += part.reshape(*part.shape[:-2], shape[-1])
    inner = (slice(None), *(slice(lo, lo + n) for (lo, _), n in zip(padding, shape[1:-1])))
    return _first(dx[inner], data_format)


def _filter_ref(x: np.ndarray, dy: np.ndarray, filter_shape: tuple[int, ...], strides: Any, padding: Pairs,
                dilations: Any, groups: int, data_format: str) -> np.ndarray:
    rank = len(strides)
    xl, dyl = _pad(_last(x, data_format), padding), _last(dy, data_format)
    grouped = dyl.reshape(-1, groups, dyl.shape[-1] // groups)
    dw = np.zeros(filter_shape)
    for tap, where in _taps(filter_shape[:rank], dyl.shape[1:-1], strides, dilations):
        part = xl[where].reshape(-1, groups, filter_shape[-2])
        dw[tap] = np.einsum("mgc,mgo->cgo", part, grouped).reshape(filter_shape[-2:])
    return dw


for _rank, (_conv, _input, _filter) in KERNEL_NAMES.items():
    reference(_conv, _cases(_rank, 0), _bad(_rank, 0))(_conv_ref)
    reference(_input, _cases(_rank, 1), _bad(_rank, 1))(_input_ref)
    reference(_filter, _cases(_rank, 2), _bad(_rank, 2))(_filter_ref)
