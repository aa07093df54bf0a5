"""Reference values of the activation kernels (Elu, EluGrad, ReluGrad, Selu, LeakyRelu, Prelu,
Relu6, Step, Softplus, Gelu, GeluGrad, LogSigmoid) and of SquaredDifference, Rsqrt and AddN, from
their definitions in float64 numpy. Few cases, to keep the kit quick: float64 over the edge
shapes, two shapes in float32, one small case in each other accepted dtype, values clear of
each kink, attribute variants in float64 only, and hand-picked values where the functions
overflow or saturate."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, complex64, float32, float64, int64
from tensorplug.errors import ShapeError
from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BROADCAST_PAIRS, EDGE_SHAPES, BadCase, Case, Domain, accepted, sample
from tensorplug.testing.references._base import CaseMaker, broadcast_bad_cases, reference

CLEAR_OF_ZERO = Domain(-3, 3, margin=0.3)
_FLOATS = (float32, float64)
_EXTREMES = (-1000.0, -40.0, -1.0, 0.0, 1.0, 40.0, 1000.0)


def _floats(spec: KernelSpec, key: Any, domain: Domain, count: int) -> list[list[np.ndarray]]:
    """One list of `count` arrays per dtype x shape: every edge shape in float64, a 0-d and a
    2-d one in float32, one 2-element shape in each other dtype the spec accepts."""
    out = []
    for d in accepted(spec, spec.inputs[0]):
        shapes = EDGE_SHAPES if d is float64 else ((), (2, 3)) if d is float32 else ((2,),)
        for i, s in enumerate(shapes):
            out.append([sample(s, d, domain, key=(spec.name, key, i, k)) for k in range(count)])
    return out


def _every_other_dtype(spec: KernelSpec, done: Sequence[DType]) -> list[Case]:
    """One small case (all inputs of shape (2,)) in each dtype the spec accepts beyond `done`."""
    count = 2 if spec.variadic else len(spec.inputs)
    return [Case(tuple(sample((2,), d, key=(spec.name, d.name, k)) for k in range(count)))
            for d in accepted(spec, spec.inputs[0]) if d not in done]


def _cases(domain: Domain = Domain(), specials: Sequence[float] = _EXTREMES, count: int = 1,
           grid: Sequence[Mapping[str, Any]] = ()) -> CaseMaker:
    """Cases of `count` same-shape float inputs (the default attributes), `specials` as every
    input in float32 and float64, and each attribute set of `grid` on a float64 case."""
    def cases(spec: KernelSpec) -> list[Case]:
        out = [Case(tuple(arrays)) for arrays in _floats(spec, "", domain, count)]
        for d in _FLOATS:
            out.append(Case((np.asarray(specials, d.numpy),) * count, label="special"))
        for j, attrs in enumerate(grid):
            arrays = tuple(sample((2, 3), float64, domain, key=(spec.name, "grid", j, k))
                           for k in range(count))
            out.append(Case(arrays, dict(attrs)))
        return out
    return cases


def _same_shape_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((sample((2, 3), float32), sample((3,), float32)), error=ShapeError,
                    why="inputs of different shapes")]


def _phi(x: np.ndarray) -> np.ndarray:
    return 0.5 * np.vectorize(math.erfc, otypes=[np.float64])(-np.asarray(x) / math.sqrt(2))


def _elu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))


_ALPHAS = ({"alpha": 0.5}, {"alpha": 2.0})


@reference("Elu", _cases(CLEAR_OF_ZERO, grid=_ALPHAS))
def _elu_reference(x: np.ndarray, alpha: float) -> np.ndarray:
    return _elu(x, alpha)


@reference("EluGrad", _cases(Domain(-0.9, 3, margin=0.3), (-0.5, 0.5, 2.0), count=2, grid=_ALPHAS),
           _same_shape_bad)
def _elu_grad(dy: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(y > 0, dy, dy * (y + alpha))


@reference("ReluGrad", _cases(CLEAR_OF_ZERO, (-1.0, 0.0, 1.0, np.inf, -np.inf, np.nan), count=2),
           _same_shape_bad)
def _relu_grad(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, dy, 0.0)


@reference("Selu", _cases(CLEAR_OF_ZERO))
def _selu(x: np.ndarray) -> np.ndarray:
    return SELU_SCALE * _elu(x, SELU_ALPHA)


@reference("LeakyRelu", _cases(CLEAR_OF_ZERO, grid=({"alpha": 0.01}, {"alpha": 1.5})))
def _leaky_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x >= 0, x, alpha * x)


_PRELU_SHAPES = (((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), ()), ((), ()), ((1,), (1,)), ((0, 3), (3,)))


def _prelu_cases(spec: KernelSpec) -> list[Case]:
    cases = [Case((sample(xs, d, CLEAR_OF_ZERO, key=(i, "x")), sample(alphas, d, Domain(0, 1), key=(i, "a"))))
             for d in _FLOATS for i, (xs, alphas) in enumerate(_PRELU_SHAPES)]
    return cases + _every_other_dtype(spec, _FLOATS)


def _prelu_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((sample((2, 3), float32), sample((2,), float32)), error=ShapeError,
                    why="an alpha that does not broadcast to x"),
            BadCase((sample((3,), float32), sample((2, 3), float32)), error=ShapeError,
                    why="an alpha that would grow x")]


@reference("Prelu", _prelu_cases, _prelu_bad)
def _prelu(x: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, alpha * x)


@reference("Relu6", _cases(Domain(-3, 5.5, margin=0.3), (-1.0, 0.0, 3.0, 6.0, 7.0, math.inf)))
def _relu6(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 0, 6)


@reference("Step", _cases(CLEAR_OF_ZERO, (-1.0, 0.0, 2.0, math.nan), grid=({"alpha": 0.25},)))
def _step(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(np.isnan(x), x, np.where(x > 0, 1.0, alpha))


@reference("Softplus", _cases())
def _softplus_reference(x: np.ndarray) -> np.ndarray:
    return _softplus(x)


@reference("LogSigmoid", _cases())
def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -_softplus(-x)


_APPROXIMATE = ({"approximate": False},)


@reference("Gelu", _cases(specials=(-40.0, -5.0, -1.0, 0.0, 1.0, 40.0), grid=_APPROXIMATE))
def _gelu(x: np.ndarray, approximate: bool) -> np.ndarray:
    return 0.5 * x * (1 + _gelu_tanh(x)) if approximate else x * _phi(x)


@reference("GeluGrad", _cases(specials=(-5.0, -1.0, 0.0, 1.0, 5.0), count=2, grid=_APPROXIMATE),
           _same_shape_bad)
def _gelu_grad(dy: np.ndarray, x: np.ndarray, approximate: bool) -> np.ndarray:
    if approximate:
        t = _gelu_tanh(x)
        slope = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * math.sqrt(2 / math.pi) * (1 + 3 * 0.044715 * x * x)
    else:
        slope = _phi(x) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return dy * slope


#: the broadcast pairs that meet 0-d, empty, size-1 and both ways of broadcasting
_PAIRS = tuple(BROADCAST_PAIRS[i] for i in (1, 2, 3, 5, 6, 7))


def _squared_difference_cases(spec: KernelSpec) -> list[Case]:
    """Six broadcast pairs in float64; two of them in float32, int64 and complex64; one small
    case in each other dtype."""
    out = []
    for d in (float64, float32, int64, complex64):
        pairs = _PAIRS if d is float64 else BROADCAST_PAIRS[:2]
        out += [Case((sample(xs, d, key=(i, "x")), sample(ys, d, key=(i, "y"))))
                for i, (xs, ys) in enumerate(pairs)]
    return out + _every_other_dtype(spec, (float64, float32, int64, complex64))


@reference("SquaredDifference", _squared_difference_cases, broadcast_bad_cases)
def _squared_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d = x - y
    return d * np.conj(d)


def _rsqrt_cases(spec: KernelSpec) -> list[Case]:
    positive = Domain(0.2, 4)
    out = [Case(tuple(arrays)) for arrays in _floats(spec, "", positive, 1)]  # (complex ones too)
    out += [Case((np.array([0.0, 1.0, 4.0, math.inf, -1.0], d.numpy),), label="special") for d in _FLOATS]
    return out


@reference("Rsqrt", _rsqrt_cases)
def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _add_n_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in (float32, float64, int64):
        for n, shape in ((1, (2, 3)), (2, ()), (1, (1,)), (3, (2, 3)), (2, (0,))):
            out.append(Case(tuple(sample(shape, d, key=(n, k)) for k in range(n))))
    return out + _every_other_dtype(spec, (float32, float64, int64))


def _add_n(*xs: np.ndarray) -> np.ndarray:
    return sum(xs[1:], xs[0])


reference("AddN", _add_n_cases, _same_shape_bad)(_add_n)
