"""Kernel specs of the sorting family: Sort, ArgSort, SearchSorted, Unique, UniqueCounts.

Ordering (every kernel of the family agrees, and so does numpy): ascending puts NaNs last;
descending is the reverse order of the values with NaNs still last; -0.0 and +0.0 compare
equal. A stable sort (``stable=True``, also what ``stable=False`` gets) keeps equal elements in
their original order in both directions. TF.js splits SearchSorted into LowerBound and
UpperBound; here one kernel takes ``side``. Unique (numpy's ``unique_all``: sorted values, the
first index of each, the inverse indices in x's shape, the counts; every NaN is distinct) has
outputs whose length depends on the values, as NonZero's does; UniqueCounts is its values and
counts alone, which a sort gives without the argsort the indices need (the same values, bit for
bit: of -0.0 and +0.0 the first one given). Unique and UniqueCounts alone also take complex
values, ordered by real part, then imaginary part (numpy's and jax's order); Sort, ArgSort and
SearchSorted refuse them, as the standard leaves their order undefined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_DTYPES, NUMERIC_DTYPES, DType, bool_, int64
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, normalize_axis, op_prefix
from tensorplug.registry.core_entries import declare_spec

#: The dtypes the family orders: real numbers and bools (False < True).
ORDERED_DTYPES = NUMERIC_DTYPES + (bool_,)
SIDES = ("left", "right")


def ordered_dtype(dtype: DType, op: str | None = None) -> DType:
    """`dtype` if the family orders it (real numbers, bools); DTypeError naming `op` else."""
    if dtype not in ORDERED_DTYPES:
        fix = ("order a real part of them, e.g. tp.real(x) or tp.abs(x)" if dtype.is_complex
               else "cast first, e.g. x.astype(tp.float64)")
        raise DTypeError(f"{op_prefix(op)}cannot order values of dtype {dtype.name}; the order is "
                         f"defined for real numbers and bools: {fix}.")
    return dtype


def sort_axis(shape: Sequence[int], axis: Any, op: str | None = None) -> int:
    """The axis (made non-negative) a sort of an input of `shape` runs along; ShapeError naming
    `op` for a 0-d input or an axis out of range."""
    if not shape:
        raise ShapeError(f"{op_prefix(op)}cannot sort a 0-d tensor (it has no axis); reshape it to "
                         "(1,) first.")
    return normalize_axis(axis, len(shape), op)


def as_side(value: Any) -> str:
    """SearchSorted's side: 'left' or 'right'."""
    if value not in SIDES or not isinstance(value, str):
        raise ValueError(f"side must be 'left' or 'right', got {value!r}")
    return str(value)


def sorted_haystack(shape: Sequence[int], op: str | None = None) -> None:
    """ShapeError naming `op` unless the sorted array searchsorted searches (x1) is 1-d."""
    if len(shape) != 1:
        raise ShapeError(f"{op_prefix(op)}x1 must be 1-d (the sorted array to search), got shape "
                         f"{tuple(shape)}; flatten it with reshape(x1, (-1,)) and sort it first.")


def _sort_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    sort_axis(x.shape, attrs["axis"])
    return [TensorInfo(x.shape, x.dtype)]


def _argsort_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    sort_axis(x.shape, attrs["axis"])
    return [TensorInfo(x.shape, int64)]


_SORT_ATTRS = (AttrSpec("axis", -1, as_int, "the axis to sort along"),
               AttrSpec("descending", False, as_bool, "largest first (NaNs still last)"),
               AttrSpec("stable", True, as_bool, "keep equal elements in their order (always done)"))

SORT = declare_spec(KernelSpec(
    name="Sort", inputs=("x",), infer=_sort_rule, attrs=_SORT_ATTRS,
    input_dtypes={"x": ORDERED_DTYPES},
    doc="x sorted along axis (stable; NaNs last, also when descending)",
))
ARGSORT = declare_spec(KernelSpec(
    name="ArgSort", inputs=("x",), infer=_argsort_rule, attrs=_SORT_ATTRS, differentiable=False,
    input_dtypes={"x": ORDERED_DTYPES},
    doc="int64 indices that sort x along axis (stable; NaNs last, also when descending)",
))


def _search_sorted_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x1, x2 = infos
    sorted_haystack(x1.shape)
    return [TensorInfo(x2.shape, int64)]


SEARCH_SORTED = declare_spec(KernelSpec(
    name="SearchSorted", inputs=("x1", "x2"), infer=_search_sorted_rule, differentiable=False,
    attrs=(AttrSpec("side", "left", as_side, "'left': x1[i-1] < v <= x1[i]; 'right': x1[i-1] <= v < x1[i]"),),
    input_dtypes={"x1": ORDERED_DTYPES, "x2": ORDERED_DTYPES}, same_dtype=("x1", "x2"),
    doc="int64 insertion indices of x2's values in the sorted 1-d x1 (one kernel for TF.js's "
        "LowerBound and UpperBound)",
))


def _unique_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    return [TensorInfo((-1,), x.dtype), TensorInfo((-1,), int64), TensorInfo(x.shape, int64),
            TensorInfo((-1,), int64)]  # the number of distinct values depends on the values


UNIQUE = declare_spec(KernelSpec(
    name="Unique", inputs=("x",), infer=_unique_rule, differentiable=False,
    outputs=("values", "indices", "inverse_indices", "counts"),
    input_dtypes={"x": ALL_DTYPES},
    doc="the sorted distinct values of x (complex ones by real part, then imaginary; each NaN "
        "distinct), the flat index of each one's first occurrence, the inverse indices (x's shape) "
        "and the counts",
))


def _unique_counts_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo((-1,), infos[0].dtype), TensorInfo((-1,), int64)]  # (lengths: as Unique's)


UNIQUE_COUNTS = declare_spec(KernelSpec(
    name="UniqueCounts", inputs=("x",), infer=_unique_counts_rule, differentiable=False,
    outputs=("values", "counts"), input_dtypes={"x": ALL_DTYPES},
    doc="Unique's values and counts alone: the sorted distinct values of x (complex ones by real "
        "part, then imaginary; each NaN distinct) and how often each occurs",
))
