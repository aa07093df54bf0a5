"""Reference values of the control-flow kernels (Cond, While, Scan): small functions traced into
graphs, each paired with the same function written in numpy; the kit runs the kernel with the
graph and compares with the numpy function run the kernel's way (a branch chosen by a clamped
index, a loop while a predicate holds, a scan forward or reversed, with an empty length), in
float64 and in float32 (the dtype the kit's onnx check runs).

The generic kernels every backend gets pass these on numpy; a backend's native control flow
(jax's lax.switch, lax.while_loop, lax.scan) is held to the same values, so the kit checks
native control flow against the generic one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, float32, float64, from_numpy_dtype, int64
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families.control_flow.graphs import Graph
from tensorplug.families.control_flow.tracing import Captures, graph_of, trace
from tensorplug.families.elementwise.ops import exp, sin, tanh
from tensorplug.families.linalg.ops import matmul
from tensorplug.families.manipulation.ops import permute_dims
from tensorplug.families.reductions.ops import sum as sum_of
from tensorplug.kernels.kernel_spec import KernelSpec, TensorInfo
from tensorplug.testing.inputs import BadCase, Case, accepted, sample
from tensorplug.testing.references._base import reference

#: each case's graph -> the numpy function it computes (the graphs live as long as their cases)
_NUMPY: dict[int, tuple[Graph, Callable[..., Any]]] = {}


def _graph(fn: Callable[..., Any], numpy_fn: Callable[..., Any], infos: Sequence[TensorInfo]) -> Graph:
    """`fn` (written with ops) traced on `infos`, remembered with its numpy twin."""
    captures = Captures()
    graph = graph_of(trace(lambda *xs: tuple(fn(*xs)), infos, "the conformance kit", captures), captures)
    _NUMPY[id(graph)] = (graph, numpy_fn)
    return graph


def _numpy(graph: Graph) -> Callable[..., Any]:
    return _NUMPY[id(graph)][1]


def _info(shape: tuple[int, ...], dtype: Any = float64) -> TensorInfo:
    return TensorInfo(shape, dtype)


def _every_dtype(spec: KernelSpec, shape: tuple[int, ...], key: str) -> list[np.ndarray]:
    """One array of `shape` per dtype the kernel takes (passed through: the kernel must hold
    them all)."""
    return [sample(shape, d, key=(key, d.name)) for d in accepted(spec, spec.inputs[0])]


def _identity(infos: Sequence[TensorInfo]) -> Graph:
    return _graph(lambda *xs: xs, lambda *xs: xs, infos)


# -- Cond -------------------------------------------------------------------------------------
#: the float dtypes the cases are written in (float32: the one the kit's onnx check runs)
_FLOATS = (float64, float32)


def _branches(dtype: DType = float64) -> tuple[Graph, ...]:
    infos = [_info((3,), dtype), _info((2, 2), dtype)]
    return (
        _graph(lambda x, y: (x * 2.0 + 1.0, matmul(y, y)), lambda x, y: (x * 2 + 1, y @ y), infos),
        _graph(lambda x, y: (sin(x), permute_dims(y, (1, 0)) * 3.0), lambda x, y: (np.sin(x), y.T * 3),
               infos),
        _graph(lambda x, y: (x * x, exp(y)), lambda x, y: (x * x, np.exp(y)), infos),
    )


def _cond_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for dtype in _FLOATS:
        branches = _branches(dtype)
        x, y = sample((3,), dtype, key=("Cond", 0)), sample((2, 2), dtype, key=("Cond", 1))
        out += [Case((np.int32(i), x, y), {"branches": branches}, label="" if 0 <= i < 3 else "clamped")
                for i in (0, 1, 2, 7, -3)]
    held = _every_dtype(spec, (1,), "Cond") + [sample((0, 2), float64, key="Cond")]
    identity = _identity([_info(a.shape, from_numpy_dtype(a.dtype)) for a in held])
    out.append(Case((np.int32(1), *held), {"branches": (identity, identity)}, label="special"))
    return out


def _cond_bad(spec: KernelSpec) -> list[BadCase]:
    branches = _branches()
    x, y = sample((3,), float64, key=("Cond", 0)), sample((2, 2), float64, key=("Cond", 1))
    return [BadCase((np.float32(1), x, y), {"branches": branches}, error=DTypeError, why="a float index"),
            BadCase((np.int32(0), x[:2], y), {"branches": branches}, error=ShapeError,
                    why="an operand of another shape than the branches take")]


@reference("Cond", _cond_cases, _cond_bad)
def _cond(index: np.ndarray, *operands: np.ndarray, branches: tuple[Graph, ...]) -> tuple[np.ndarray, ...]:
    chosen = branches[min(max(int(index), 0), len(branches) - 1)]
    return tuple(_numpy(chosen)(*operands))


# -- While ------------------------------------------------------------------------------------
def _while_graphs(dtype: DType = float64) -> tuple[Graph, Graph]:
    infos = [_info((), dtype), _info((), int64), _info((3,), dtype)]
    cond = _graph(lambda k, i, v: (i < 4,), lambda k, i, v: (i < 4,), infos)
    body = _graph(lambda k, i, v: (i + 1, v * k + sin(v)), lambda k, i, v: (i + 1, v * k + np.sin(v)), infos)
    return cond, body


def _while_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for dtype in _FLOATS:
        cond, body = _while_graphs(dtype)
        v = sample((3,), dtype, key=("While", 0))
        attrs = {"cond": cond, "body": body, "n_consts": 1}
        out += [Case((np.asarray(0.5, dtype.numpy), np.int64(start), v), attrs,
                     label="" if start < 4 else "no step") for start in (0, 2, 9)]
    held = _every_dtype(spec, (1,), "While") + [sample((0, 2), float64, key="While")]
    infos = [_info((), int64)] + [_info(a.shape, from_numpy_dtype(a.dtype)) for a in held]
    counted = _graph(lambda i, *xs: (i < 2,), lambda i, *xs: (i < 2,), infos)
    step = _graph(lambda i, *xs: (i + 1, *xs), lambda i, *xs: (i + 1, *xs), infos)
    out.append(Case((np.int64(0), *held), {"cond": counted, "body": step, "n_consts": 0}, label="special"))
    return out


@reference("While", _while_cases)
def _while(*inputs: np.ndarray, cond: Graph, body: Graph, n_consts: int) -> tuple[np.ndarray, ...]:
    consts, carry = inputs[:n_consts], tuple(inputs[n_consts:])
    while bool(_numpy(cond)(*consts, *carry)[0]):
        carry = tuple(_numpy(body)(*consts, *carry))
    return carry


# -- Scan -------------------------------------------------------------------------------------
def _scan_body(dtype: DType = float64) -> Graph:
    infos = [_info((3,), dtype), _info((3,), dtype), _info((), dtype), _info((3,), dtype)]
    return _graph(lambda w, c, t, x: (tanh(c * w + x), t + sum_of(x), c * x + w, t * 2.0),
                  lambda w, c, t, x: (np.tanh(c * w + x), t + np.sum(x), c * x + w, t * 2), infos)


def _scan_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for dtype in _FLOATS:
        body = _scan_body(dtype)
        w, c = sample((3,), dtype, key=("Scan", 0)), sample((3,), dtype, key=("Scan", 1))
        for length, reverse in ((5, False), (5, True), (0, False)):
            x = sample((length, 3), dtype, key=("Scan", 2))
            attrs = {"body": body, "n_consts": 1, "n_carry": 2, "length": length, "reverse": reverse}
            out.append(Case((w, c, np.asarray(0.25, dtype.numpy), x), attrs,
                            label="" if length else "no step"))
    carry = _every_dtype(spec, (1,), "Scan")
    every = _every_dtype(spec, (2, 1), "Scan xs")
    infos = [_info(a.shape, from_numpy_dtype(a.dtype)) for a in carry + [x[0] for x in every]]
    attrs = {"body": _identity(infos), "n_consts": 0, "n_carry": len(carry), "length": 2, "reverse": False}
    out.append(Case((*carry, *every), attrs, label="special"))
    return out


def _scan_bad(spec: KernelSpec) -> list[BadCase]:
    body = _scan_body()
    w, c = sample((3,), float64, key=("Scan", 0)), sample((3,), float64, key=("Scan", 1))
    xs = sample((4, 3), float64, key=("Scan", 2))
    attrs = {"body": body, "n_consts": 1, "n_carry": 2, "length": 5, "reverse": False}
    return [BadCase((w, c, np.float64(0.25), xs), attrs, error=ShapeError, why="xs shorter than length")]


@reference("Scan", _scan_cases, _scan_bad)
def _scan(*inputs: np.ndarray, body: Graph, n_consts: int, n_carry: int, length: int,
          reverse: bool) -> tuple[np.ndarray, ...]:
    consts, carry = inputs[:n_consts], tuple(inputs[n_consts:n_consts + n_carry])
    xs = inputs[n_consts + n_carry:]
    ys: list[tuple[np.ndarray, ...]] = []
    for t in (range(length - 1, -1, -1) if reverse else range(length)):
        out = _numpy(body)(*consts, *carry, *[x[t] for x in xs])
        carry, y = tuple(out[:n_carry]), tuple(out[n_carry:])
        ys.append(y)
    if reverse:
        ys.reverse()
    infos = body.out_infos[n_carry:]
    stacked = [np.stack([y[k] for y in ys]) if ys else np.zeros((0, *info.shape))
               for k, info in enumerate(infos)]
    return (*carry, *stacked)
