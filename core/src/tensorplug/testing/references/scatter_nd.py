"""Reference values of the n-d gather/scatter kernels: GatherNd, ScatterNd (repeated indices
accumulate) and TensorScatterUpdate (distinct indices), with numpy's integer-array indexing;
an index out of range, negative ones included, must raise IndexOutOfRangeError."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.dtypes import DType, float32, float64
from tensorplug.errors import IndexOutOfRangeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, index_array, sample
from tensorplug.testing.references._base import other_dtypes, reference

#: the whole table in float64, its first rows in float32 (few compilations: the kit stays quick)
_PLAN = ((float64, None), (float32, 2))

# (shape indexed, indices)
_TABLE = [((5,), [[0], [4], [2], [2]]), ((3, 4), [[1, 0], [2, 3]]), ((3, 4), [[2], [0]]),
          ((2, 3, 2), [[[1, 2], [0, 0]], [[1, 1], [0, 2]]]), ((3, 4), np.zeros((0, 2), int)), ((1,), [[0]]),
          ((4,), [2])]  # (a 0-d slice)


def _at(indices: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.moveaxis(indices, -1, 0))


def _slices(shape: tuple[int, ...], indices: np.ndarray) -> tuple[int, ...]:
    return indices.shape[:-1] + shape[indices.shape[-1]:]


def _cases(spec: KernelSpec, kernel: str) -> list[Case]:
    out = []
    for j, (d, rows) in enumerate(_PLAN):
        for i, (shape, idx) in enumerate(_TABLE[:rows]):
            indices = index_array(idx, spec, "indices", j * len(_TABLE) + i)
            if kernel == "TensorScatterUpdate" and i == 0:
                indices = indices[:2]  # (distinct indices: which repeated update wins is unspecified)
            updates = sample(_slices(shape, indices), d, key=(i, "u"))
            if kernel == "GatherNd":
                out.append(Case((sample(shape, d, key=i), indices)))
            elif kernel == "ScatterNd":
                out.append(Case((indices, updates), {"shape": shape}))
            else:
                out.append(Case((sample(shape, d, key=i), indices, updates)))
    # every other dtype: one row with distinct indices (bools do not accumulate), cast
    shape, idx = _TABLE[1]
    indices = np.asarray(idx, np.int64)

    def one(d: DType) -> Case:
        x, u = sample(shape, d, key=1), sample(_slices(shape, indices), d, key=(1, "u"))
        return {"GatherNd": Case((x, indices)), "ScatterNd": Case((indices, u), {"shape": shape})}.get(
            kernel, Case((x, indices, u)))
    return out + other_dtypes(spec, out, "updates" if kernel == "ScatterNd" else spec.inputs[0], one)


def _bad(kernel: str) -> Any:
    def bad(spec: KernelSpec) -> list[BadCase]:
        x, u = sample((4, 3), float32), sample((2, 3), float32)
        cases = []
        for idx, why in (([[1], [4]], "an index past the end"),
                         ([[-1], [0]], "a negative index (TF: out of range)")):
            indices = np.array(idx, np.int64)
            inputs = {"GatherNd": (x, indices), "ScatterNd": (indices, u),
                      "TensorScatterUpdate": (x, indices, u)}
            cases.append(BadCase(inputs[kernel], {"shape": (4, 3)} if kernel == "ScatterNd" else {},
                                 error=IndexOutOfRangeError, why=why))
        too_deep = np.zeros((1, 3), np.int64)
        inputs = {"GatherNd": (x, too_deep), "ScatterNd": (too_deep, u[:1]),
                  "TensorScatterUpdate": (x, too_deep, u[:1])}
        cases.append(BadCase(inputs[kernel], {"shape": (4, 3)} if kernel == "ScatterNd" else {},
                             error=ShapeError, why="indices addressing more axes than there are"))
        if kernel != "GatherNd":
            wrong = (np.array([[1]], np.int64), u)
            cases.append(BadCase(wrong if kernel == "ScatterNd" else (x, *wrong),
                                 {"shape": (4, 3)} if kernel == "ScatterNd" else {},
                                 error=ShapeError, why="updates of the wrong shape"))
        return cases
    return bad


@reference("GatherNd", lambda spec: _cases(spec, "GatherNd"), _bad("GatherNd"))
def _gather_nd(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    return params[_at(indices)]


@reference("ScatterNd", lambda spec: _cases(spec, "ScatterNd"), _bad("ScatterNd"))
def _scatter_nd(indices: np.ndarray, updates: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, updates.dtype)
    np.add.at(out, _at(indices), updates)
    return out


@reference("TensorScatterUpdate", lambda spec: _cases(spec, "TensorScatterUpdate"),
           _bad("TensorScatterUpdate"))
def _tensor_scatter_update(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    out = tensor.copy()
    out[_at(indices)] = updates
    return out
