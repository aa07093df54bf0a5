"""Reference values of the layout kernels: MirrorPad, SpaceToBatchND, BatchToSpaceND,
DepthToSpace, SpaceToDepth. Few cases (CI time): each table's first row on every dtype, its
attribute variants on float64 only. The rearrangements are computed by index arithmetic
from TF's definitions (out[...] = x[index(...)]), not by the kernels' reshape plans."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import float64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import Case, accepted, sample
from tensorplug.testing.references._base import reference
from tensorplug.testing.references.manipulation import BadTable, Table, table_bad

__all__ = ["few_cases"]


def few_cases(table: Table, wide: Any = float64) -> Callable[[KernelSpec], list[Case]]:
    """The table's first row (a small one) on every dtype the spec accepts, every row on `wide`:
    each dtype once, the attribute variants on one dtype (kept few: CI time)."""
    def cases(spec: KernelSpec) -> list[Case]:
        rows = [(d, 0) for d in accepted(spec, spec.inputs[0]) if d is not wide]
        rows += [(wide, i) for i in range(len(table))]
        return [Case(tuple(sample(s, d, key=(spec.name, i, k)) for k, s in enumerate(table[i][0])),
                     table[i][1]) for d, i in rows]
    return cases


_MIRROR: Table = [
    ([(3, 4)], {"paddings": ((1, 2), (2, 0)), "mode": "reflect"}),
    ([(2, 3)], {"paddings": ((2, 0), (1, 3)), "mode": "symmetric"}),
    ([(2, 0)], {"paddings": ((1, 1), (0, 0)), "mode": "symmetric"}),
    ([(1,)], {"paddings": ((1, 0),), "mode": "symmetric"}), ([()], {"paddings": (), "mode": "reflect"}),
]
_MIRROR_BAD: BadTable = [
    ([(3,)], {"paddings": ((3, 0),), "mode": "reflect"}, ShapeError, "a reflection as wide as the axis"),
    ([(3,)], {"paddings": ((0, 4),), "mode": "symmetric"}, ShapeError, "a mirror wider than the axis"),
    ([(2, 3)], {"paddings": ((1, 1),), "mode": "reflect"}, ShapeError, "one pair for a 2-d input"),
]


@reference("MirrorPad", few_cases(_MIRROR), table_bad(_MIRROR_BAD))
def _mirror_pad(x: np.ndarray, paddings: Any, mode: Any) -> np.ndarray:
    return np.pad(x, paddings, mode=mode) if x.ndim else x.copy()


def _space_to_batch(x: np.ndarray, block_shape: Sequence[int], paddings: Any) -> np.ndarray:
    """out[o * batch + n, i..., r...] = padded[n, i * b + o..., r...], o the block offsets
    (row-major)."""
    m = len(block_shape)
    padded = np.pad(x, [(0, 0), *paddings] + [(0, 0)] * (x.ndim - m - 1))
    batch, rest = x.shape[0], x.shape[m + 1:]
    spatial = [padded.shape[i + 1] // b for i, b in enumerate(block_shape)]
    out = np.empty((batch * math.prod(block_shape), *spatial, *rest), dtype=x.dtype)
    grids = np.indices(spatial)
    for k, offsets in enumerate(itertools.product(*(range(b) for b in block_shape))):  # block taps
        where = tuple(g * b + o for g, b, o in zip(grids, block_shape, offsets))
        out[k * batch:(k + 1) * batch] = padded[(slice(None),) + where]
    return out


def _batch_to_space(x: np.ndarray, block_shape: Sequence[int], crops: Any) -> np.ndarray:
    """Each output position (i * b + o...) of example n from input example o * batch + n, at
    spatial i..., then cropped."""
    m = len(block_shape)
    batch = x.shape[0] // math.prod(block_shape)
    spatial, rest = x.shape[1:m + 1], x.shape[m + 1:]
    full = np.empty((batch, *[s * b for s, b in zip(spatial, block_shape)], *rest), dtype=x.dtype)
    for k, offsets in enumerate(itertools.product(*(range(b) for b in block_shape))):  # block taps
        where = tuple(slice(o, None, b) for o, b in zip(offsets, block_shape))
        full[(slice(None),) + where] = x[k * batch:(k + 1) * batch]
    cut = tuple(slice(lo, full.shape[i + 1] - hi) for i, (lo, hi) in enumerate(crops))
    return full[(slice(None),) + cut]


_SPACE_TO_BATCH: Table = [
    ([(1, 4, 4, 1)], {"block_shape": (2, 2), "paddings": ((0, 0), (0, 0))}),
    ([(2, 3, 2, 3)], {"block_shape": (2, 1), "paddings": ((1, 0), (0, 0))}),
    ([(2, 5)], {"block_shape": (3,), "paddings": ((0, 1),)}),
    ([(1, 2, 2)], {"block_shape": (2, 2), "paddings": ((1, 1), (0, 2))}),
    ([(0, 2)], {"block_shape": (2,), "paddings": ((0, 0),)}),
    ([(1, 1)], {"block_shape": (1,), "paddings": ((0, 0),)}),
]
_SPACE_TO_BATCH_BAD: BadTable = [
    ([(1, 3, 4)], {"block_shape": (2, 2), "paddings": ((0, 0), (0, 0))}, ShapeError,
     "a spatial size that does not divide by its block"),
    ([(4,)], {"block_shape": (2,), "paddings": ((0, 0),)}, ShapeError, "no spatial axis"),
]
_BATCH_TO_SPACE: Table = [
    ([(4, 2, 2, 1)], {"block_shape": (2, 2), "crops": ((0, 0), (0, 0))}),
    ([(4, 2, 3)], {"block_shape": (2, 1), "crops": ((1, 0), (0, 1))}),
    ([(6, 2)], {"block_shape": (3,), "crops": ((2, 1),)}),
    ([(0, 2)], {"block_shape": (2,), "crops": ((0, 0),)}),
    ([(1, 1)], {"block_shape": (1,), "crops": ((0, 0),)}),
]
_BATCH_TO_SPACE_BAD: BadTable = [
    ([(3, 2, 2)], {"block_shape": (2, 1), "crops": ((0, 0), (0, 0))}, ShapeError,
     "a batch that does not divide by the blocks"),
    ([(4, 1)], {"block_shape": (2,), "crops": ((2, 1),)}, ShapeError, "crops past the axis"),
]
reference("SpaceToBatchND", few_cases(_SPACE_TO_BATCH), table_bad(_SPACE_TO_BATCH_BAD))(_space_to_batch)
reference("BatchToSpaceND", few_cases(_BATCH_TO_SPACE), table_bad(_BATCH_TO_SPACE_BAD))(_batch_to_space)


def _nhwc(x: np.ndarray, data_format: str) -> np.ndarray:
    return x if data_format == "NHWC" else np.transpose(x, (0, 2, 3, 1))


def _from_nhwc(x: np.ndarray, data_format: str) -> np.ndarray:
    return x if data_format == "NHWC" else np.transpose(x, (0, 3, 1, 2))


@reference("DepthToSpace", few_cases([
    ([(1, 2, 3, 8)], {"block_size": 2}), ([(2, 4, 1, 2)], {"block_size": 2, "data_format": "NCHW"}),
    ([(1, 1, 2, 9)], {"block_size": 3}), ([(0, 1, 1, 4)], {"block_size": 2}),
    ([(1, 1, 1, 1)], {"block_size": 1}),
]), table_bad([([(1, 2, 2, 6)], {"block_size": 2}, ShapeError, "channels not divisible by 4"),
               ([(2, 2, 4)], {"block_size": 2}, ShapeError, "a 3-d input")]))
def _depth_to_space(x: np.ndarray, block_size: int, data_format: str) -> np.ndarray:
    """out[n, h * b + i, w * b + j, c] = x[n, h, w, (i * b + j) * C + c]."""
    v = _nhwc(x, data_format)
    n, h, w, c = v.shape
    b = block_size
    oh, ow, oc = np.meshgrid(np.arange(h * b), np.arange(w * b), np.arange(c // (b * b)), indexing="ij")
    out = v[:, oh // b, ow // b, ((oh % b) * b + ow % b) * (c // (b * b)) + oc]
    return _from_nhwc(out, data_format)


@reference("SpaceToDepth", few_cases([
    ([(1, 4, 6, 2)], {"block_size": 2}), ([(2, 3, 4, 2)], {"block_size": 2, "data_format": "NCHW"}),
    ([(1, 3, 3, 1)], {"block_size": 3}), ([(0, 2, 2, 1)], {"block_size": 2}),
    ([(1, 1, 1, 1)], {"block_size": 1}),
]), table_bad([([(1, 3, 4, 1)], {"block_size": 2}, ShapeError, "a height not divisible by 2"),
               ([(1, 4, 4, 1)], {"block_size": 0}, ShapeError, "a block size below 1")]))
def _space_to_depth(x: np.ndarray, block_size: int, data_format: str) -> np.ndarray:
    """out[n, h, w, (i * b + j) * C + c] = x[n, h * b + i, w * b + j, c]."""
    v = _nhwc(x, data_format)
    n, h, w, c = v.shape
    b = block_size
    oh, ow, od = np.meshgrid(np.arange(h // b), np.arange(w // b), np.arange(c * b * b), indexing="ij")
    tap, oc = od // c, od % c
    out = v[:, oh * b + tap // b, ow * b + tap % b, oc]
    return _from_nhwc(out, data_format)
