"""Reference values of the elementwise kernels: unary math, binary arithmetic, comparisons,
logic, Cast, Where and Clip, each with a domain where the function is defined and smooth
(Log on positives, Abs clear of 0, Floor clear of integers) plus hand-picked values at the
points where backends differ (halves for Round, ties for comparisons, zeros for Sign)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...dtypes import ALL_DTYPES, DType, complex64, float32
from ...errors import DTypeError, ShapeError
from ...kernel_spec import KernelSpec
from ..inputs import ANY, BadCase, Case, Domain, dtype_groups, sample
from ._base import Reference, binary_cases, broadcast_bad_cases, reference, register_reference, unary_cases

CLEAR_OF_ZERO = Domain(-3, 3, margin=0.3)
OFF_GRID = Domain(-3, 3, off_grid=True)
POSITIVE = Domain(0.2, 4)


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


# name: (numpy function, domain, special values)
_UNARY: dict[str, tuple[Callable[[Any], Any], Domain, tuple[float, ...]]] = {
    "Negative": (np.negative, Domain(), (0, -2, 3)),
    "Abs": (np.abs, CLEAR_OF_ZERO, (-2, 0, 3)),
    "Sign": (np.sign, CLEAR_OF_ZERO, (-2, 0, 3)),
    "Square": (np.square, Domain(), (-3, 0, 2)),
    "Floor": (np.floor, OFF_GRID, (-1.5, -1.0, 0.0, 1.0, 1.5)),
    "Ceil": (np.ceil, OFF_GRID, (-1.5, -1.0, 0.0, 1.0, 1.5)),
    "Round": (np.round, OFF_GRID, (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, 1.51)),  # halves to even
    "Exp": (np.exp, Domain(), (0.0, -20.0, 10.0)),
    "Log": (np.log, POSITIVE, (1.0, math.e, 1e-3)),
    "Log1p": (np.log1p, Domain(-0.8, 3), (0.0, 1e-7, -0.5)),
    "Expm1": (np.expm1, Domain(-2, 2), (0.0, 1e-7, -1e-4)),
    "Sqrt": (np.sqrt, POSITIVE, (0.0, 1.0, 4.0)),
    "Sin": (np.sin, Domain(), (0.0, math.pi / 2)),
    "Cos": (np.cos, Domain(), (0.0, math.pi)),
    "Tanh": (np.tanh, Domain(), (0.0, -20.0, 20.0)),
    "Sigmoid": (_stable_sigmoid, Domain(-5, 5), (0.0, -100.0, -30.0, 30.0, 100.0)),
    "Relu": (lambda x: np.maximum(x, 0), CLEAR_OF_ZERO, (-1, 0, 2)),
}

#: Expm1 and Log1p exist to be accurate near 0: their values there are held to a relative
#: tolerance (a float32 exp(x) - 1 at x = 1e-7 is off by 19%, well inside the default atol).
_RELATIVE = {"Expm1": {"float32": 1e-9, "float64": 1e-15}, "Log1p": {"float32": 1e-9, "float64": 1e-15}}

for _name, (_fn, _domain, _special) in _UNARY.items():
    register_reference(Reference(_name, unary_cases(_domain, _special), compute=_fn,
                                 atol=_RELATIVE.get(_name)))

reference("LogicalNot", unary_cases())(np.logical_not)

# -- binary ---------------------------------------------------------------------------------
_TIES = ((1, 2, 3, -1), (1, 3, 2, -1))  # equal, less, greater elements
NONZERO = Domain(-3, 3, margin=0.5)
_BINARY: dict[str, tuple[Callable[[Any, Any], Any], Domain, Domain, tuple[Any, ...]]] = {
    "Add": (np.add, Domain(), Domain(), ()),
    "Subtract": (np.subtract, Domain(), Domain(), ()),
    "Multiply": (np.multiply, Domain(), Domain(), ()),
    "Divide": (np.divide, Domain(), NONZERO, ((1, -3, 0), (2, 2, -4))),
    "Maximum": (np.maximum, Domain(), Domain(), _TIES),
    "Minimum": (np.minimum, Domain(), Domain(), _TIES),
    "Equal": (np.equal, Domain(), Domain(), _TIES),
    "NotEqual": (np.not_equal, Domain(), Domain(), _TIES),
    "Less": (np.less, Domain(), Domain(), _TIES),
    "LessEqual": (np.less_equal, Domain(), Domain(), _TIES),
    "Greater": (np.greater, Domain(), Domain(), _TIES),
    "GreaterEqual": (np.greater_equal, Domain(), Domain(), _TIES),
    "LogicalAnd": (np.logical_and, Domain(), Domain(), ((1, 1, 0, 0), (1, 0, 1, 0))),
    "LogicalOr": (np.logical_or, Domain(), Domain(), ((1, 1, 0, 0), (1, 0, 1, 0))),
}

for _name, (_fn2, _dx, _dy, _pair) in _BINARY.items():
    register_reference(Reference(_name, binary_cases(_dx, _dy, _pair), compute=_fn2,
                                 bad_cases=broadcast_bad_cases))


def _pow_cases(spec: KernelSpec) -> list[Case]:
    """Floats: positive bases, any exponent. Integers: exponents >= 0 (what an integer to a
    negative power gives is not part of the spec)."""
    floats = binary_cases(Domain(0.5, 2.5), Domain(-2, 2), ((4, 2, 0.5), (0.5, 0, 3)))(spec)
    ints = binary_cases(Domain(-3, 3), Domain(0, 3), ((2, -3, 0, 5), (3, 3, 0, 0)))(spec)
    return ([c for c in floats if c.inputs[0].dtype.kind == "f"]
            + [c for c in ints if c.inputs[0].dtype.kind in "iu"])


reference("Pow", _pow_cases, broadcast_bad_cases)(np.power)


def _floor_divide_cases(spec: KernelSpec) -> list[Case]:
    """Nonzero divisors, and (integers) division by zero, which gives 0 on every backend."""
    cases = binary_cases(Domain(), NONZERO, ((7, -7, 7, -7, 6), (2, 2, -2, -2, 3)))(spec)
    by_zero = binary_cases(Domain(), NONZERO, ((7, -7, 0, 3), (0, 0, 0, 2)))(spec)
    return cases + [c for c in by_zero if c.label == "special" and c.inputs[0].dtype.kind in "iu"]


@reference("FloorDivide", _floor_divide_cases, broadcast_bad_cases)
def _floor_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """floor(x / y); an integer divided by 0 is 0 (tensorplug's choice: the Array API leaves it
    unspecified)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(x, y)


# -- Cast, Where, Clip ----------------------------------------------------------------------
_CAST_SHAPES = ((), (0,), (1,), (2, 3))


def _cast_cases(spec: KernelSpec) -> list[Case]:
    """Every pair of dtypes but complex to real (one shape each, the shapes in turn); a float
    to an unsigned dtype from values >= 0 (a negative one is unspecified: backends differ)."""
    out = []
    pairs = [(s, d) for s in ALL_DTYPES for d in ALL_DTYPES if not s.is_complex or d.is_complex or d.is_bool]
    for i, (src, dst) in enumerate(pairs):
        domain = Domain(0, 3) if src.is_inexact and dst.is_unsigned_integer else ANY
        shape = _CAST_SHAPES[i % len(_CAST_SHAPES)]
        out.append(Case((sample(shape, src, domain, key=("Cast", i)),), {"dtype": dst}))
        if src.is_floating and not dst.is_unsigned_integer:  # truncation toward zero; zeros become False
            out.append(Case((np.array([0.0, 1.5, -2.5, 2.99, -0.7], src.numpy),), {"dtype": dst},
                            label="special"))
    return out


def _cast_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((sample((2,), float32),), {"dtype": "datetime64[s]"}, error=DTypeError,
                    why="a dtype tensorplug does not have"),
            BadCase((sample((2,), complex64),), {"dtype": float32}, error=DTypeError,
                    why="complex to real (it would drop the imaginary part)")]


@reference("Cast", _cast_cases, _cast_bad)
def _cast(x: np.ndarray, dtype: DType) -> np.ndarray:
    return x.astype(dtype.numpy)


_WHERE_SHAPES = (((2, 3), (2, 3), (2, 3)), ((2, 3), (), (3,)), ((2, 1), (1, 3), (2, 3)),
                 ((), (), ()), ((0,), (0,), (1,)), ((1,), (2, 1), ()))


def _where_cases(spec: KernelSpec) -> list[Case]:
    bool_ = ALL_DTYPES[0]
    out = []
    for dtypes in dtype_groups(spec):
        d = dtypes["x"]
        for i, (cs, xs, ys) in enumerate(_WHERE_SHAPES):
            out.append(Case((sample(cs, bool_, key=i), sample(xs, d, key=(i, "x")),
                             sample(ys, d, key=(i, "y")))))
    return out


def _where_bad(spec: KernelSpec) -> list[BadCase]:
    f = ALL_DTYPES[3]
    return [BadCase((sample((2, 3), ALL_DTYPES[0]), sample((2, 3), f), sample((4,), f)),
                    error=ShapeError, why="shapes that do not broadcast")]


reference("Where", _where_cases, _where_bad)(np.where)

_CLIP_BOUNDS = ((-1.0, 1.0), (None, 0.5), (-0.5, None), (None, None), (2.0, 2.0), (-1.5, 1.5), (0.5, 2.5))


def _clip_cases(spec: KernelSpec) -> list[Case]:
    out = []
    for d in spec.input_dtypes["x"]:
        for i, (lo, hi) in enumerate(_CLIP_BOUNDS):
            for j, shape in enumerate(((), (0,), (1,), (2, 3))):
                out.append(Case((sample(shape, d, key=(i, j)),), {"min": lo, "max": hi}))
    return out


def _clip_bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((sample((3,), float32),), {"min": 1.0, "max": -1.0}, error=ShapeError,
                    why="min greater than max")]


@reference("Clip", _clip_cases, _clip_bad)
def _clip(x: np.ndarray, min: float | None, max: float | None) -> np.ndarray:  # noqa: A002
    """Integers are limited to the integers inside [min, max] and the dtype's range (the dtype
    never changes)."""
    lo, hi = min, max
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        lo = None if lo is None else builtins.min(builtins.max(math.ceil(lo), int(info.min)), int(info.max))
        hi = None if hi is None else builtins.max(builtins.min(math.floor(hi), int(info.max)), int(info.min))
    out = x if lo is None else np.maximum(x, np.asarray(lo, x.dtype))
    return out if hi is None else np.minimum(out, np.asarray(hi, x.dtype))
