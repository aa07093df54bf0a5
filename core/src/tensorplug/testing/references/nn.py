"""Reference values of the neural-network kernels: Softmax and LogSoftmax along one axis,
including inputs so large that computing them without subtracting the maximum overflows."""

from __future__ import annotations

import numpy as np

from ...errors import ShapeError
from ...kernel_spec import KernelSpec
from ..inputs import BadCase, Case, accepted, sample
from ._base import reference

_SHAPES = (((), -1), ((), 0), ((1,), -1), ((5,), -1), ((5,), 0), ((2, 3), -1), ((2, 3), 0),
           ((2, 3, 2), 1), ((0,), -1), ((2, 0), 0), ((2, 0), -1))


def _cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "x"):
        for i, (shape, axis) in enumerate(_SHAPES):
            out.append(Case((sample(shape, d, key=(spec.name, i)),), {"axis": axis}))
        out.append(Case((np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]], d.numpy),),
                        {"axis": -1}, label="special"))
    return out


def _bad(spec: KernelSpec) -> list[BadCase]:
    x = sample((2, 3), accepted(spec, "x")[0])
    return [BadCase((x,), {"axis": 2}, error=ShapeError, why="an axis out of range")]


def _shifted(x: np.ndarray, axis: int) -> np.ndarray:
    return x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)


@reference("Softmax", _cases, _bad)
def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    if x.size == 0:
        return x.copy()
    e = np.exp(_shifted(x, axis))
    return e / e.sum(axis=axis, keepdims=True)


@reference("LogSoftmax", _cases, _bad)
def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros_like(x)
    if x.size == 0:
        return x.copy()
    s = _shifted(x, axis)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
