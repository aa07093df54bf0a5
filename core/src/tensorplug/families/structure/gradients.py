"""Default gradients of the structure kernels: Reverse, Tile, SplitV, Unpack, Diag,
MatrixBandPart, TopK (BroadcastArgs is not differentiable). Each sends dy back to where the
input's elements went: TopK's scatters it to the selected indices, Tile's sums the tiles."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.linalg.matrix_functions import diagonal

Grads = Mapping[str, Callable[[], Any]]


@gradient("Reverse")
def _reverse(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("Reverse", dy, axes=attrs["axes"])}


@gradient("Tile", inputs=("x",))
def _tile(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        reps = attrs["reps"]
        if not reps:
            return dy
        interleaved = tuple(v for r, d in zip(reps, x.shape) for v in (r, d))
        return tp.sum(tp.reshape(dy, interleaved), axis=tuple(range(0, 2 * len(reps), 2)))

    return {"x": dx}


@gradient("SplitV")
def _split_v(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    parts = dy if isinstance(dy, tuple) else (dy,)
    return {"x": lambda: tp.concat(list(parts), axis=attrs["axis"])}


@gradient("Unpack")
def _unpack(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    parts = dy if isinstance(dy, tuple) else (dy,)
    return {"x": lambda: tp.stack(list(parts), axis=attrs["axis"])}


@gradient("Diag", inputs=("x",))
def _diag(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        n = math.prod(x.shape)
        return tp.reshape(diagonal(tp.reshape(dy, (n, n))), x.shape)

    return {"x": dx}


@gradient("MatrixBandPart")
def _band_part(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("MatrixBandPart", dy, **attrs)}


@gradient("TopK", inputs=("x",), outputs=("indices",))
def _top_k(dy: Any, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, indices = saved
    dvalues = dy[0]

    def dx() -> Tensor:
        n, k = x.shape[-1], indices.shape[-1]
        rows = math.prod(x.shape[:-1])
        offsets = tp.asarray(np.arange(rows, dtype=np.int64).reshape(rows, 1) * n)
        flat = tp.reshape(tp.add(tp.reshape(indices, (rows, k)), offsets), (rows * k,))
        summed = kernel("ScatterAdd", flat, tp.reshape(dvalues, (rows * k,)), shape=(rows * n,), axis=0)
        return tp.reshape(summed, x.shape)

    return {"x": dx}
