"""Helpers every backend's kernels need, written once (TF.js has ``kernel_impls`` for this).

Pure functions over Python values, numpy dtypes and shapes, never Tensors and never a backend's
arrays, so any backend can call them from its kernels (also inside a function being compiled:
they read shapes, dtypes and attributes only, except ``check_index_bounds``, which reads index
values, and ``stable_argsort``, which orders a backend's array with the backend's own
argsort). Those that check raise tensorplug's errors naming the kernel, the backend and the
fix. Also the elementwise kernel tables: which kernel names take one input, which two, and
which are plain arithmetic, for a backend to fill with its own library's functions, and the
few elementwise formulas where libraries miss the standard's special cases or differ from
numpy (``floor_divide_floats``, ``expm1_complex_parts``): those take the backend's array namespace
`xp` (numpy, jax.numpy) and compute with its functions only.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES, accumulator_of
from tensorplug.errors import DTypeError, IndexOutOfRangeError, RegistrationError, ShapeError
from tensorplug.families.fused.spec import depthwise_as_grouped
from tensorplug.kernel_helpers import image_sampling, random_constants
from tensorplug.kernel_helpers.activation_formulas import (
    SELU_ALPHA,
    SELU_SCALE,
    elu_values,
    gelu_slope,
    gelu_values,
)
from tensorplug.kernel_helpers.rearrange import (
    band_part,
    batch_to_space,
    depth_to_space,
    space_to_batch,
    space_to_depth,
)
from tensorplug.kernel_helpers.sparse_shapes import (
    check_nd_index_bounds,
    fill_empty_rows,
    sparse_reshape_indices,
    sparse_reshape_shape,
)
from tensorplug.kernel_helpers.windows import (
    avg_pool_divisor,
    conv_channels_first,
    conv_transpose_padding,
    output_sizes,
    pool_window,
    tap_slices,
    window_taps,
)

if TYPE_CHECKING:  # (numpy.typing, for annotations only: ~1 ms of import tensorplug)
    import numpy.typing as npt

__all__ = [
    "ACCUMULATOR_DTYPES", "BINARY_KERNELS", "COMPLEX_SPECIAL_CASES", "PLAIN_ARITHMETIC", "SELU_ALPHA",
    "SELU_SCALE", "UNARY_KERNELS", "avg_pool_divisor", "band_part", "batch_to_space",
    "check_index_bounds", "check_nd_index_bounds", "clip_bounds", "conv_channels_first",
    "conv_transpose_padding", "depth_to_space", "depthwise_as_grouped", "elementwise_functions",
    "elu_values", "euclidean_norm",
    "expm1_complex_parts", "fill_empty_rows", "floor_divide_floats", "gelu_slope", "gelu_values",
    "normalize_axis", "output_sizes", "pool_window", "range_dtype", "range_length", "slice_index",
    "space_to_batch", "space_to_depth", "sparse_reshape_indices", "sparse_reshape_shape",
    "stable_argsort", "tap_slices", "window_taps",
]
__all__ += ["image_sampling"]  # the image family's arithmetic (tensorplug.kernel_helpers.image_sampling)
__all__ += ["random_constants"]  # the constants of threefry and erfinv (kernel_helpers.random_constants)

# -- axes, slices and indices ---------------------------------------------------------------------
_EMPTY = slice(0, 0, 1)


def normalize_axis(kernel: str, backend: str, axis: int, ndim: int) -> int:
    """`axis` of an `ndim`-d array as an index in [0, ndim); an axis outside [-ndim, ndim)
    (any axis of a 0-d array) is a ShapeError."""
    if -ndim <= axis < ndim:
        return axis % ndim
    valid = f"valid axes are {-ndim}..{ndim - 1}" if ndim else "a 0-d array has no axis"
    raise ShapeError(f"Kernel '{kernel}' on backend '{backend}': axis {axis} is out of range for a "
                     f"{ndim}-d array; {valid}. Pass an axis of the array, or reshape it first.")


def slice_index(kernel: str, backend: str, slices: Sequence[tuple[int, int, int]],
                shape: Sequence[int]) -> tuple[slice, ...]:
    """Python slices reading exactly ``range(start, stop, step)`` on each axis of `shape`, from
    one normalized ``(start, stop, step)`` per axis (as ``slice.indices(size)`` gives them); a
    wrong count, a zero step or a range leaving its axis (which numpy and jax would clip
    silently) is a ShapeError."""
    if len(slices) != len(shape):
        raise ShapeError(f"Kernel '{kernel}' on backend '{backend}': {len(slices)} slices given for "
                         f"a {len(shape)}-d input (shape {tuple(shape)}); give one (start, stop, step) "
                         "per axis.")
    index = []
    for axis, ((start, stop, step), size) in enumerate(zip(slices, shape)):
        if step == 0:
            raise ShapeError(f"Kernel '{kernel}' on backend '{backend}': slice {(start, stop, step)} "
                             f"of axis {axis} has step 0; normalize slices with slice.indices(size).")
        r = range(start, stop, step)
        if not r:
            index.append(_EMPTY)
        elif 0 <= r[0] < size and 0 <= r[-1] < size:
            index.append(slice(start, stop if stop >= 0 else None, step))  # stop -1: through index 0
        else:
            raise ShapeError(
                f"Kernel '{kernel}' on backend '{backend}': slice {(start, stop, step)} reads "
                f"indices {r[0]}..{r[-1]}, outside axis {axis} of size {size} (shape {tuple(shape)}); "
                "normalize slices with slice.indices(size)."
            )
    return tuple(index)


def check_index_bounds(kernel: str, backend: str, indices: npt.ArrayLike, shape: Sequence[int],
                       axis: int, what: str = "x") -> None:
    """Raise IndexOutOfRangeError naming the first of `indices` outside [-size, size) of `axis`
    of `shape`; return None if all are inside. `what` says whose shape it is ("x", "output")."""
    shape = tuple(shape)
    size = shape[normalize_axis(kernel, backend, axis, len(shape))]
    indices = np.asarray(indices)
    bad = indices[(indices < -size) | (indices >= size)]
    if not bad.size:
        return
    valid = f"valid indices are {-size}..{size - 1}" if size else "the axis is empty, so no index is"
    raise IndexOutOfRangeError(
        f"Kernel '{kernel}' on backend '{backend}': index {int(bad.flat[0])} is out of range "
        f"for axis {axis} of size {size} ({what} shape {shape}); {valid}"
        + (f" ({bad.size} indices out of range)" if bad.size > 1 else "")
        + ". Check the indices, or clip them into range first."
    )


# -- numbers and dtypes ---------------------------------------------------------------------------
def clip_bounds(kernel: str, backend: str, dtype: npt.DTypeLike, lo: float | None,
                hi: float | None) -> tuple[Any, Any]:
    """The bounds to clip an array of `dtype` to, so that the result keeps its dtype: for float
    dtypes, scalars of `dtype` (a bound past its range is an infinity); for integer dtypes the
    integers inside [lo, hi] (ceil(lo), floor(hi)) limited to the dtype's range. None stays None
    (no bound); a NaN bound of integers is a DTypeError."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        scalar: Any = dtype.type  # (bfloat16's is ml_dtypes', which numpy's stubs do not know)
        with np.errstate(over="ignore"):  # (1e30 as float16: inf, as wanted)
            return (None if lo is None else scalar(lo)), (None if hi is None else scalar(hi))
    info = np.iinfo(dtype)
    bounds: list[int | None] = []
    for name, value, to_int in (("min", lo, math.ceil), ("max", hi, math.floor)):
        if value is None:
            bounds.append(None)
        elif value != value:  # NaN: no bound an integer could meet
            raise DTypeError(f"Kernel '{kernel}' on backend '{backend}': cannot clip {dtype} values "
                             f"to a NaN bound ({name}={value}); pass a number or None, or cast the "
                             "input to a float dtype first.")
        elif value <= info.min:
            bounds.append(int(info.min))
        elif value >= info.max:
            bounds.append(int(info.max))
        else:
            bounds.append(to_int(value))
    return bounds[0], bounds[1]


def range_length(start: float, stop: float, step: float) -> int:
    """The number of values ``start + step * i`` that Range gives: ceil((stop - start) / step),
    at least 0 (`step` is not 0: the Range spec refuses it)."""
    return max(0, math.ceil((stop - start) / step))


def range_dtype(start: float, stop: float, step: float) -> np.dtype:
    """The dtype to compute Range's ``start + step * i`` in before casting once to the output
    dtype: int64 when all three are integers (exact), else float64 (casting a fractional step
    to an integer dtype first would repeat values)."""
    exact = all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
    return np.dtype(np.int64 if exact else np.float64)


#: input dtype -> the dtype Sum, Prod, Cumsum and Cumprod accumulate (and answer) in, where it
#: differs from the input's (the specs' rule, ``tensorplug.dtypes.accumulator_of``: bool and
#: signed integers widen to int64, unsigned ones to uint64)
ACCUMULATOR_DTYPES: Mapping[np.dtype, np.dtype] = MappingProxyType({
    d.numpy: accumulator_of(d).numpy for d in ALL_DTYPES if accumulator_of(d) is not d})


def euclidean_norm(xp: Any, x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
    """The EuclideanNorm kernel with the array namespace `xp` (numpy or jax.numpy):
    sqrt(sum |x|^2) over `axis` (None: all), real; half floats square and sum in float32 (their
    squares overflow or round off early) and come back in their own dtype."""
    dtype = np.dtype(x.dtype)
    axis = axis if x.ndim else None
    if dtype.kind == "c":
        squares = xp.real(x) * xp.real(x) + xp.imag(x) * xp.imag(x)
    else:
        wide = x.astype(np.float32) if dtype.itemsize < 4 else x
        squares = wide * wide
    out = xp.sqrt(xp.sum(squares, axis=axis, keepdims=keepdims))
    return out.astype(dtype) if dtype.itemsize < 4 else out


# -- the elementwise tables -----------------------------------------------------------------------
#: kernels of one input and no attributes (the result has the input's shape)
UNARY_KERNELS: tuple[str, ...] = (
    "Negative", "Abs", "Sign", "Square", "Floor", "Ceil", "Round", "Exp", "Log", "Log1p", "Expm1",
    "Sqrt", "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "Relu", "LogicalNot", "Trunc", "Acos", "Acosh", "Asin",
    "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "IsNan", "IsInf", "IsFinite", "Signbit", "BitwiseInvert",
    "Real", "Imag", "Conj",
)
#: kernels of two inputs of one dtype (ops promote first) that broadcast, and no attributes
BINARY_KERNELS: tuple[str, ...] = (
    "Add", "Subtract", "Multiply", "Divide", "FloorDivide", "Pow", "Maximum", "Minimum", "Equal",
    "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
    "LogicalXor", "Atan2", "Copysign", "Hypot", "Nextafter", "Mod", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "LeftShift", "RightShift",
)
#: plain arithmetic, comparisons, tests, logic and bit operations of those two tables: they give
#: inf or nan only by overflow or from inf and nan inputs (no division, logarithm or root), so a
#: backend whose library warns about floating-point errors may leave its settings alone for them
#: (the numpy backend does, to save the switch). Square would qualify; it is left out, so the
#: numpy backend keeps silencing its overflow as it always has.
PLAIN_ARITHMETIC: frozenset[str] = frozenset({
    "Negative", "Abs", "Sign", "Floor", "Ceil", "Round", "Trunc", "Relu", "LogicalNot", "IsNan",
    "IsInf", "IsFinite", "Signbit", "BitwiseInvert", "Real", "Imag", "Conj",
    "Add", "Subtract", "Multiply", "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual",
    "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "Copysign", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift",
})
#: kernel name -> the Array API standard's function computing it (Sigmoid and Relu have none)
_ARRAY_API_NAMES: Mapping[str, str] = {
    "Negative": "negative", "Abs": "abs", "Sign": "sign", "Square": "square", "Floor": "floor",
    "Ceil": "ceil", "Round": "round", "Exp": "exp", "Log": "log", "Log1p": "log1p",
    "Expm1": "expm1", "Sqrt": "sqrt", "Sin": "sin", "Cos": "cos", "Tan": "tan", "Tanh": "tanh",
    "LogicalNot": "logical_not", "Add": "add", "Subtract": "subtract", "Multiply": "multiply",
    "Divide": "divide", "FloorDivide": "floor_divide", "Pow": "pow", "Maximum": "maximum",
    "Minimum": "minimum", "Equal": "equal", "NotEqual": "not_equal", "Less": "less",
    "LessEqual": "less_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
    "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "Trunc": "trunc", "Acos": "acos",
    "Acosh": "acosh", "Asin": "asin", "Asinh": "asinh", "Atan": "atan", "Atanh": "atanh",
    "Cosh": "cosh", "Sinh": "sinh", "IsNan": "isnan", "IsInf": "isinf", "IsFinite": "isfinite",
    "Signbit": "signbit", "BitwiseInvert": "bitwise_invert", "LogicalXor": "logical_xor",
    "Atan2": "atan2", "Copysign": "copysign", "Hypot": "hypot", "Nextafter": "nextafter",
    "Mod": "remainder", "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or",
    "BitwiseXor": "bitwise_xor", "LeftShift": "bitwise_left_shift",
    "RightShift": "bitwise_right_shift", "Real": "real", "Imag": "imag", "Conj": "conj",
}


def elementwise_functions(namespace: Any, **overrides: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """Kernel name -> array function for each name of UNARY_KERNELS then BINARY_KERNELS:
    ``overrides[name]`` if given, else the `namespace`'s Array API function (``numpy.exp`` for
    "Exp"). An override of a name not in the tables, or a name with no function, is a
    RegistrationError."""
    unknown = sorted(set(overrides) - set(UNARY_KERNELS) - set(BINARY_KERNELS))
    if unknown:
        raise RegistrationError(f"elementwise_functions: {unknown} are not kernels of the elementwise "
                                "tables; override names of UNARY_KERNELS or BINARY_KERNELS only.")
    library = getattr(namespace, "__name__", repr(namespace))
    functions = {}
    for name in UNARY_KERNELS + BINARY_KERNELS:
        if name in overrides:
            functions[name] = overrides[name]
            continue
        api_name = _ARRAY_API_NAMES.get(name)
        if api_name is None or not hasattr(namespace, api_name):
            lacks = f"{library} has no function '{api_name}'" if api_name else "the Array API has none"
            raise RegistrationError(f"elementwise_functions: no function for kernel '{name}' ({lacks}); "
                                    f"pass one: elementwise_functions({library}, {name}=...).")
        functions[name] = getattr(namespace, api_name)
    return functions


# -- elementwise special cases ---------------------------------------------------------------------
def floor_divide_floats(xp: Any, x: Any, y: Any) -> Any:
    """floor(x / y) of real floats as numpy and Python define it (x // y pairs with x % y):
    `xp`.floor_divide, whose infinite cases numpy, XLA and Python share (-1.5 // inf is -1.0,
    inf // 2.0 is nan; the Array API lists the other choice, floor of the IEEE quotient, and
    allows both), with a zero result signed as x / y, as numpy signs it (XLA signs -0 // 2 +0
    and -1.5 // -2.0 -0)."""
    q = xp.floor_divide(x, y)
    return xp.where(q == 0, xp.copysign(xp.zeros_like(q), x / y), q)


def expm1_complex_parts(xp: Any, z: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of exp(z) - 1 for complex `z`, accurate near 0 and with the
    Array API's special cases (numpy and XLA miss several of the infinite and NaN ones): the
    parts are expm1(a) cos(b) - 2 sin(b / 2)**2 and exp(a) sin(b) for z = a + bj, then b == 0
    keeps b, and -inf (+inf) with an infinite or NaN b gives -1 + 0j (inf + nan j). The parts
    keep the dtype of z's real part: the Python numbers mixed in are weak scalars in numpy,
    jax and torch, and no method is called on them (torch's tensors have no ``astype``)."""
    a, b = xp.real(z), xp.imag(z)
    half = xp.sin(b / 2)
    re = xp.expm1(a) * xp.cos(b) - 2 * half * half
    im = xp.where(b == 0, b, xp.exp(a) * xp.sin(b))
    wild = ~xp.isfinite(b)
    re = xp.where(wild & (a == -xp.inf), -1, xp.where(wild & (a == xp.inf), xp.inf, re))
    im = xp.where(wild & (a == -xp.inf), 0, xp.where(wild & (a == xp.inf), xp.nan, im))
    return re, im


Parts = tuple[Any, Any]


def _exp_at_infinity(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    wild = ~xp.isfinite(b)  # exp(-inf + inf j) = 0 + 0j, exp(+inf + inf j) = inf + nan j; b NaN too
    low, high = wild & (a == -xp.inf), wild & (a == xp.inf)
    return xp.where(low, 0, xp.where(high, xp.inf, re)), xp.where(low, 0, xp.where(high, xp.nan, im))


def _cosh_sinh(xp: Any, a: Any, b: Any, re: Any, im: Any, sinh: bool) -> Parts:
    wild = ~xp.isfinite(b)  # an infinite or NaN imaginary part with a real part 0 or infinite
    zero, inf = wild & (a == 0), wild & xp.isinf(a)
    if sinh:  # +-0 + nan j, +-inf + nan j
        return xp.where(zero | inf, a, re), xp.where(zero | inf, xp.nan, im)
    return xp.where(zero, xp.nan, xp.where(inf, xp.inf, re)), xp.where(zero, 0, xp.where(inf, xp.nan, im))


def _tanh(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    zero = ~xp.isfinite(b) & (a == 0)  # +-0 + nan j
    return xp.where(zero, a, re), xp.where(zero, xp.nan, im)


def _log(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    both = (xp.isinf(a) & xp.isnan(b)) | (xp.isnan(a) & xp.isinf(b))  # inf + nan j
    return xp.where(both, xp.inf, re), xp.where(both, xp.nan, im)


def _sqrt(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    nan_b = xp.isnan(b)  # sqrt(+inf + nan j) = inf + nan j, sqrt(-inf + nan j) = nan +- inf j,
    high, low = nan_b & (a == xp.inf), nan_b & (a == -xp.inf)  # sqrt(a + inf j) = inf + inf j
    re = xp.where(xp.isinf(b), xp.inf, xp.where(high, xp.inf, xp.where(low, xp.nan, re)))
    return re, xp.where(xp.isinf(b), b, xp.where(high, xp.nan, xp.where(low, xp.inf, im)))


def _acos(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    hit = xp.isnan(b) & (a == 0)  # pi/2 + nan j
    return xp.where(hit, math.pi / 2, re), xp.where(hit, xp.nan, im)


def _acosh(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    hit = xp.isnan(b) & (a == 0)  # nan + pi/2 j
    return xp.where(hit, xp.nan, re), xp.where(hit, math.pi / 2, im)


def _asinh(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    hit = xp.isnan(a) & (b == 0)  # nan + 0j, the zero's sign kept
    return xp.where(hit, xp.nan, re), xp.where(hit, b, im)


def _atanh(xp: Any, a: Any, b: Any, re: Any, im: Any) -> Parts:
    nan_b = xp.isnan(b)  # +-0 + nan j for a real part 0 or infinite, nan + nan j otherwise
    re = xp.where(nan_b, xp.where(a == 0, a, xp.where(xp.isinf(a), xp.copysign(0 * re, a), xp.nan)), re)
    return re, xp.where(nan_b | (xp.isnan(a) & ~xp.isinf(b)), xp.nan, im)


#: kernel name -> fixup(xp, a, b, re, im) -> (re, im): for a complex input a + bj and the
#: parts (re, im) a library computed, the parts with the Array API's special cases of infinite
#: and NaN inputs (C99's) where XLA misses them; numpy's complex functions follow them already
COMPLEX_SPECIAL_CASES: Mapping[str, Callable[..., Parts]] = MappingProxyType({
    "Exp": _exp_at_infinity,
    "Cosh": functools.partial(_cosh_sinh, sinh=False),
    "Sinh": functools.partial(_cosh_sinh, sinh=True),
    "Tanh": _tanh,
    "Log": _log,
    "Log1p": _log,
    "Sqrt": _sqrt,
    "Acos": _acos,
    "Acosh": _acosh,
    "Asinh": _asinh,
    "Atanh": _atanh,
})


# -- sorting ----------------------------------------------------------------------------------------
def stable_argsort(argsort: Callable[[Any, int], Any], x: Any, axis: int, descending: bool) -> Any:
    """The indices that sort `x` (a backend's array) along the non-negative `axis` stably, in
    numpy's order: NaNs last, -0.0 == +0.0. `argsort(a, axis)` is the backend's stable ascending
    argsort. Descending keeps equal elements in their original order and NaNs last (a flipped
    ascending argsort does neither): floats are sorted by their negation (exact; NaN stays
    NaN), other dtypes by the reversed input, whose order is reversed back and re-indexed."""
    if not descending:
        return argsort(x, axis)
    if "float" in np.dtype(x.dtype).name:  # float16..float64 and bfloat16
        return argsort(-x, axis)
    backwards = (slice(None),) * axis + (slice(None, None, -1),)
    return (x.shape[axis] - 1) - argsort(x[backwards], axis)[backwards]
