"""Reference values of the neural-network kernels: Softmax and LogSoftmax along one axis,
including inputs so large that computing them without subtracting the maximum overflows;
SparseSoftmaxCrossEntropyWithLogits, labels out of range included (rows of NaN)."""

from __future__ import annotations

import numpy as np

from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, sample
from tensorplug.testing.references._base import reference

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


def _xent_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in accepted(spec, "features"):
        for t in accepted(spec, "labels"):
            for i, (rows, classes) in enumerate(((1, 1), (3, 4), (5, 2), (0, 3))):
                out.append(Case((sample((rows, classes), d, key=(spec.name, i)),
                                 sample((rows,), t, Domain(0, classes - 1), key=(spec.name, i))), {}))
            big = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0], [0.0, 1.0, 2.0]], d.numpy)
            out.append(Case((big, np.array([0, 1, 2], t.numpy)), {}, label="special"))
            out.append(Case((big, np.array([3, -1, 1], t.numpy)), {}, label="special"))
            out.append(Case((np.zeros((2, 0), d.numpy), np.array([0, 1], t.numpy)), {}, label="special"))
    return out


def _xent_bad(spec: KernelSpec) -> list[BadCase]:
    x, labels = sample((2, 3), accepted(spec, "features")[0]), np.array([0, 1], np.int64)
    return [BadCase((x, labels[:1]), {}, error=ShapeError, why="labels of another batch size"),
            BadCase((x[None], labels), {}, error=ShapeError, why="features of rank 3")]


@reference("SparseSoftmaxCrossEntropyWithLogits", _xent_cases, _xent_bad)
def _sparse_xent(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows, classes = features.shape
    bad = (labels < 0) | (labels >= classes)
    picked = np.where(bad, 0, labels)
    log_probs = _log_softmax(features, 1) if classes else features
    loss = -log_probs[np.arange(rows), picked] if classes else np.zeros(rows)
    backprop = np.exp(log_probs)
    if classes:
        backprop[np.arange(rows), picked] -= 1
    loss[bad] = np.nan
    backprop[bad] = np.nan
    return loss, backprop
