"""Set ops (Python Array API names): unique_all, unique_counts, unique_inverse, unique_values,
isin.

unique_all and unique_inverse run the kernel Unique (numpy's ``unique_all``), unique_values and
unique_counts the kernel UniqueCounts (its values and counts, with no argsort): the distinct values of the
flattened input, sorted (NaNs last, each NaN distinct with a count of one; -0.0 and +0.0 are
one value; complex values by real part, then imaginary part, as numpy's np.unique orders them).
They take every dtype (bool and complex too). Their lengths depend on the values, so they
cannot run inside ``tp.jit`` on a compiling backend. They are not differentiable (the standard
says nothing of it): a gradient through them raises GradientNotFoundError.

isin is composed: x2 sorted, x1's elements searched in it (SearchSorted) and compared with what
they land on: exact, O((n + m) log m), and it runs inside tp.jit and tp.vmap like its parts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.errors import DTypeError
from tensorplug.families._common.convert import asarray, caller, convert_pair
from tensorplug.families.creation.ops import full
from tensorplug.families.elementwise.ops import equal, logical_not, minimum
from tensorplug.families.manipulation.ops import expand_dims, reshape
from tensorplug.families.reductions.ops import any as _any
from tensorplug.families.sorting.ops import searchsorted, sort

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

_UNIQUE = caller("Unique")
_UNIQUE_COUNTS = caller("UniqueCounts")
_GATHER = caller("Gather", {"axis": 0})


class UniqueAllResult(NamedTuple):
    """unique_all's result: values, indices (first occurrences), inverse_indices, counts."""

    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    """unique_counts's result: values, counts."""

    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    """unique_inverse's result: values, inverse_indices (x's shape)."""

    values: Tensor
    inverse_indices: Tensor


def _unique(op: str, x: Any) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    x = asarray(x)
    out: tuple[Tensor, Tensor, Tensor, Tensor] = _UNIQUE((x,), {})
    return out


def _unique_counts(x: Any) -> tuple[Tensor, Tensor]:
    out: tuple[Tensor, Tensor] = _UNIQUE_COUNTS((asarray(x),), {})
    return out


def unique_all(x: Any, /) -> UniqueAllResult:
    """The distinct values of x (flattened, sorted), the flat index of each one's first
    occurrence, the indices into values that rebuild x (x's shape) and the counts (int64)."""
    return UniqueAllResult(*_unique("unique_all", x))


def unique_counts(x: Any, /) -> UniqueCountsResult:
    """The distinct values of x (flattened, sorted) and how often each occurs (int64)."""
    return UniqueCountsResult(*_unique_counts(x))


def unique_inverse(x: Any, /) -> UniqueInverseResult:
    """The distinct values of x (flattened, sorted) and the int64 indices into them that
    rebuild x (x's shape)."""
    values, _, inverse, _ = _unique("unique_inverse", x)
    return UniqueInverseResult(values, inverse)


def unique_values(x: Any, /) -> Tensor:
    """The distinct values of x (flattened, sorted; each NaN distinct), as a 1-d tensor."""
    return _unique_counts(x)[0]


def isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Tensor:
    """For each element of x1, whether it equals an element of x2 (with `invert`: whether it
    equals none), as bools of x1's shape; the two are promoted to one dtype first (a Python
    scalar takes the other's). NaN is in nothing; -0.0 is in what holds 0.0."""
    invert = valid.flag(invert, "isin", "invert")
    try:
        a, b = convert_pair(x1, x2, "isin")
    except DTypeError as exc:
        message = str(exc)
        raise DTypeError(message if message.startswith("isin") else f"isin: {message}") from None
    values = reshape(b, (-1,))
    if values.shape[0] == 0:
        return full(a.shape, invert, dtype=bool_)
    if a.dtype.is_complex:  # (no order to sort by: each against all)
        found = _any(equal(expand_dims(a, axis=-1), values), axis=-1)
    else:
        haystack = sort(values)
        flat = reshape(a, (-1,))
        at = minimum(searchsorted(haystack, flat), values.shape[0] - 1)  # (past the end: the last)
        found = reshape(equal(_GATHER((haystack, at)), flat), a.shape)
    return logical_not(found) if invert else found
