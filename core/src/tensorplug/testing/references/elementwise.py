"""Reference values of the elementwise kernels: unary math, binary arithmetic, comparisons,
logic, bitwise operations, Cast, Where and Clip, each with a domain where the function is defined and smooth
(Log on positives, Abs clear of 0, Floor clear of integers) plus hand-picked values at the
points where backends differ (halves for Round, ties for comparisons, zeros for Sign)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES, DType, complex64, float32, is_inexact_numpy
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import ANY, BadCase, Case, Domain, dtype_groups, sample
from tensorplug.testing.references._base import (
    Reference,
    binary_cases,
    broadcast_bad_cases,
    reference,
    register_reference,
    unary_cases,
)

CLEAR_OF_ZERO = Domain(-3, 3, margin=0.3)
OFF_GRID = Domain(-3, 3, off_grid=True)
POSITIVE = Domain(0.2, 4)


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


INSIDE_ONE = Domain(-0.9, 0.9)
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erfinv(x: np.ndarray) -> np.ndarray:
    """erf^-1 by Newton's method from Winitzki's approximation (relative error 2e-3, so four
    steps reach float64's precision), on math.erf below |x| = 0.5 and on math.erfc above (1 - |x|
    is exact there); +-inf at +-1, nan beyond."""
    x = np.asarray(x, np.float64)
    inside = np.abs(x) < 1
    t = np.where(inside, np.abs(x), 0.0)
    a = 0.147
    log = np.log1p(-t * t)
    b = 2 / (math.pi * a) + log / 2
    y = np.sqrt(np.sqrt(b * b - log / a) - b)
    for _ in range(4):
        miss = np.where(t < 0.5, _erf(y) - t, (1 - t) - _erfc(y))
        y = y - miss / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    return np.where(inside, np.copysign(y, x), np.where(np.abs(x) == 1, np.copysign(np.inf, x), np.nan))


_NON_FINITE = (math.nan, math.inf, -math.inf, 0.0, -2.0, 1e30)

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
    "Tan": (np.tan, Domain(-1.5, 1.5), (0.0, -0.0, 1.0)),
    "Tanh": (np.tanh, Domain(), (0.0, -20.0, 20.0)),
    "Sigmoid": (_stable_sigmoid, Domain(-5, 5), (0.0, -100.0, -30.0, 30.0, 100.0)),
    "Erfinv": (_erfinv, Domain(-0.98, 0.98), (0.0, -0.0, 0.5, -0.999, 1.0, -1.0, 1.5, math.nan)),
    "Relu": (lambda x: np.maximum(x, 0), CLEAR_OF_ZERO, (-1, 0, 2)),
    "Trunc": (np.trunc, OFF_GRID, (-1.5, -1.0, -0.0, 0.0, 0.7, 1.0, 2.5, math.inf, math.nan)),
    "Acos": (np.arccos, INSIDE_ONE, (-1.0, 0.0, 0.5, 1.0, 2.0)),  # nan outside [-1, 1]
    "Asin": (np.arcsin, INSIDE_ONE, (-1.0, 0.0, 0.5, 1.0, -2.0)),
    "Atan": (np.arctan, Domain(), (0.0, -1e4, 1e4, math.inf)),
    "Acosh": (np.arccosh, Domain(1.2, 4), (1.0, 2.0, 1e4, 0.5)),  # nan below 1
    "Asinh": (np.arcsinh, Domain(), (0.0, -1e4, 1e4, 1e-5)),
    "Atanh": (np.arctanh, INSIDE_ONE, (0.0, 0.5, -0.99, 1.0, -1.0, 1.5)),  # +-inf at +-1
    "Cosh": (np.cosh, Domain(), (0.0, -20.0, 20.0)),
    "Sinh": (np.sinh, Domain(), (0.0, -20.0, 20.0, 1e-5)),
    "IsNan": (np.isnan, Domain(), _NON_FINITE),
    "IsInf": (np.isinf, Domain(), _NON_FINITE),
    "IsFinite": (np.isfinite, Domain(), _NON_FINITE),
    "Signbit": (np.signbit, Domain(), (-0.0, 0.0, -1.5, 2.0, -math.inf, math.inf, -math.nan, math.nan)),
    "BitwiseInvert": (np.invert, Domain(), (0, -1, 5, -6)),
    "Real": (np.real, Domain(), (0.0, -0.0, -2.5, math.inf, math.nan)),
    "Imag": (np.imag, Domain(), (0.0, -0.0, -2.5, math.inf, math.nan)),
    "Conj": (np.conj, Domain(), (0.0, -0.0, -2.5, math.inf, math.nan)),
    "Copy": (np.copy, Domain(), (0.0, -0.0, -2.5, math.inf, math.nan)),
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
_BITS = ((0, -1, 5, 12, -7), (0, 6, -1, 10, 3))
_QUADRANTS = ((0.0, -0.0, 0.0, -0.0, 1.0, -1.0, math.inf, 2.0),
              (-0.0, -0.0, 0.0, 1.0, 0.0, -0.0, -math.inf, -math.inf))
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
    "LogicalXor": (np.logical_xor, Domain(), Domain(), ((1, 1, 0, 0), (1, 0, 1, 0))),
    # signed zeros and infinities pick the quadrant
    "Atan2": (np.arctan2, CLEAR_OF_ZERO, CLEAR_OF_ZERO, _QUADRANTS),
    "Copysign": (np.copysign, CLEAR_OF_ZERO, CLEAR_OF_ZERO, ((1.5, -2.0, 3.0, 0.0, math.nan),
                                                             (-0.0, 0.0, -math.nan, -1.0, -2.0))),
    # no overflow of the squares, and inf wins over nan
    "Hypot": (np.hypot, Domain(), Domain(), ((3.0, 0.0, 1e30, 3e-30, math.inf, math.nan),
                                             (-4.0, -0.0, 1e30, 4e-30, math.nan, -math.inf))),
    "BitwiseAnd": (np.bitwise_and, Domain(-9, 9), Domain(-9, 9), _BITS),
    "BitwiseOr": (np.bitwise_or, Domain(-9, 9), Domain(-9, 9), _BITS),
    "BitwiseXor": (np.bitwise_xor, Domain(-9, 9), Domain(-9, 9), _BITS),
    # shifts in [0, 31]: defined for every integer dtype (numpy's answer beyond: see the kernel tests)
    "LeftShift": (np.left_shift, Domain(-9, 9), Domain(0, 31), ((1, -1, 5, 0), (0, 31, 3, 7))),
    "RightShift": (np.right_shift, Domain(-300, 300), Domain(0, 31), ((1, -1, -5, 5), (0, 31, 1, 1))),
}

for _name, (_fn2, _dx, _dy, _pair) in _BINARY.items():
    register_reference(Reference(_name, binary_cases(_dx, _dy, _pair), compute=_fn2,
                                 bad_cases=broadcast_bad_cases))


def _pow_cases(spec: KernelSpec) -> list[Case]:
    """Floats: positive bases, any exponent. Integers: exponents >= 0 (what an integer to a
    negative power gives is not part of the spec)."""
    floats = binary_cases(Domain(0.5, 2.5), Domain(-2, 2), ((4, 2, 0.5), (0.5, 0, 3)))(spec)
    ints = binary_cases(Domain(-3, 3), Domain(0, 3), ((2, -3, 0, 5), (3, 3, 0, 0)))(spec)
    return ([c for c in floats if is_inexact_numpy(c.inputs[0].dtype)]
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


def _mod_cases(spec: KernelSpec) -> list[Case]:
    """Nonzero divisors of either sign; (floats) signed zeros, infinities and division by zero;
    (integers) division by zero, which gives 0 on every backend."""
    cases = binary_cases(Domain(), NONZERO, ((7, -7, 7, -7, 6, 0), (2, 2, -2, -2, 3, 5)))(spec)
    by_zero = binary_cases(Domain(), NONZERO, ((7, -7, 0, 3), (0, 0, 0, 2)))(spec)
    return (cases + [c for c in by_zero if c.label == "special" and c.inputs[0].dtype.kind == "i"]
            + [Case(tuple(np.array(v, d.numpy) for v in _MOD_FLOATS), label="special")
               for d in spec.input_dtypes["x"] if d.is_floating])


_MOD_FLOATS = ((-0.0, 0.0, 1.5, -1.5, 1.5, math.inf, 2.0, math.nan),
               (2.0, -2.0, math.inf, math.inf, 0.0, 2.0, -0.0, 1.0))


@reference("Mod", _mod_cases, broadcast_bad_cases)
def _mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x - y * floor(x / y) with the sign of y; an integer modulo 0 is 0 (numpy's answer, kept by
    tensorplug: the Array API leaves it unspecified)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.remainder(x, y)


def _nextafter_cases(spec: KernelSpec) -> list[Case]:
    return binary_cases(Domain(), Domain(), ((0.0, -0.0, 0.0, 1.0, 1.0, -1.0, math.nan, 3.0),
                                             (1.0, 0.0, -0.0, 2.0, 1.0, -2.0, 1.0, math.inf)))(spec)


#: one unit in the last place apart must show: computed in the input's own dtype, held exactly
register_reference(Reference("Nextafter", _nextafter_cases, compute=np.nextafter, upcast=False,
                             bad_cases=broadcast_bad_cases,
                             rtol={"float32": 1e-9, "float64": 1e-18, "float16": 2e-4, "bfloat16": 2e-3},
                             atol=0.0))


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
