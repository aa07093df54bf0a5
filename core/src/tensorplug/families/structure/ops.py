"""Structure ops: ``split`` (numpy's signature), ``einsum``, ``top_k`` (jax.lax's),
``broadcast_shapes`` (numpy's, on Python shapes) and ``broadcast_args`` (TF's, on shape
tensors); ``tensor_diag`` and ``band_part`` are public as ``tp.linalg``'s (TF's names)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import int32, int64
from tensorplug.errors import ArgumentError, DTypeError, ShapeError, TracedValueError
from tensorplug.families._common.axes import promote_all
from tensorplug.families._common.convert import asarray, caller
from tensorplug.families.einsum.spec import parse_einsum
from tensorplug.families.structure.spec import band_bounds, split_sizes, top_k_count
from tensorplug.kernels.shape_rules import broadcast_shapes as _broadcast
from tensorplug.kernels.shape_rules import normalize_axis

__all__ = ["broadcast_args", "broadcast_shapes", "einsum", "split", "top_k"]

_SPLIT_V = caller("SplitV")
_BROADCAST_ARGS = caller("BroadcastArgs")
_DIAG = caller("Diag")
_BAND_PART = caller("MatrixBandPart")
_TOP_K = caller("TopK")
_EINSUM = caller("Einsum")


def split(x: Any, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Tensor]:
    """x cut along `axis` (numpy's split): into `indices_or_sections` equal parts (an int that
    divides the axis), or at the increasing indices given (negative ones count from the end)."""
    x = asarray(x)
    if not x.ndim:
        raise ShapeError("split: x is 0-d; it needs an axis to cut along (reshape it to (1,) first).")
    a = normalize_axis(axis, x.ndim, "split")
    n = x.shape[a]
    whole = hasattr(indices_or_sections, "__index__") and getattr(indices_or_sections, "ndim", 0) == 0
    if whole or isinstance(indices_or_sections, (str, bytes)) or not hasattr(indices_or_sections, "__iter__"):
        parts = valid.integer(indices_or_sections, "split", "indices_or_sections", minimum=1)
        if n % parts:
            raise ShapeError(f"split: axis {a} of size {n} does not divide into {parts} equal parts; "
                             "give split indices instead (a list).")
        sizes = (n // parts,) * parts
    else:
        cuts = [valid.integer(i, "split", "indices_or_sections") for i in indices_or_sections]
        cuts = [min(max(c + n if c < 0 else c, 0), n) for c in cuts]
        if any(p > q for p, q in zip(cuts, cuts[1:])):
            raise ShapeError(f"split: the indices {list(indices_or_sections)} must be increasing (after "
                             "counting negative ones from the end); the parts cannot overlap.")
        bounds = [0, *cuts, n]
        sizes = tuple(q - p for p, q in zip(bounds, bounds[1:]))
    split_sizes(x.shape, sizes, a, "split")
    return list(_SPLIT_V((x,), {"sizes": sizes, "axis": a}))


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
    """The shape arrays of these shapes broadcast to (numpy's broadcast_shapes)."""
    return _broadcast(*(valid.shape(s, "broadcast_shapes", "shapes") for s in shapes), op="broadcast_shapes")


def broadcast_args(s0: Any, s1: Any) -> Tensor:
    """The broadcast of two shapes given as 1-d int32/int64 tensors, as a tensor of their
    dtype (TF's broadcast_args); sizes that do not broadcast are a ShapeError (inside tp.jit,
    where values are unknown, each axis takes the size that is not 1, s0's where they clash)."""
    s0, s1 = asarray(s0), asarray(s1)
    for s in (s0, s1):
        if s.dtype not in (int32, int64) or s.ndim != 1:
            raise DTypeError(f"broadcast_args: shapes must be 1-d int32 or int64 tensors, got "
                             f"{s.dtype.name}{list(s.shape)}.")
    if s0.dtype is not s1.dtype:
        s0, s1 = s0.astype(int64), s1.astype(int64)
    try:
        sizes = tuple(s0.numpy().tolist()), tuple(s1.numpy().tolist())
    except TracedValueError:  # (inside tp.jit: no values to check; the kernel's per-axis rule holds)
        sizes = None
    if sizes is not None:
        _broadcast(*sizes, op="broadcast_args")
    return _BROADCAST_ARGS((s0, s1), {})


def tensor_diag(x: Any, /) -> Tensor:
    """TF's tensor_diag: out[i..., j...] = x[i...] where i... == j..., else 0; a vector gives a
    diagonal matrix, and shape (d1, ..., dk) gives (d1, ..., dk, d1, ..., dk)."""
    x = asarray(x)
    valid.checked_size(x.shape + x.shape, x._backend, "tensor_diag")
    return _DIAG((x,), {})


def band_part(x: Any, /, num_lower: int, num_upper: int) -> Tensor:
    """Each matrix of x (..., M, N) kept where -num_lower <= j - i <= num_upper, zeros
    elsewhere (TF's band_part; a negative bound keeps that whole triangle)."""
    x = asarray(x)
    band_bounds(x.shape, "band_part")
    lower = valid.integer(num_lower, "band_part", "num_lower")
    upper = valid.integer(num_upper, "band_part", "num_upper")
    return _BAND_PART((x,), {"num_lower": lower, "num_upper": upper})


def top_k(x: Any, k: int) -> tuple[Tensor, Tensor]:
    """The k largest values along the last axis, largest first (equal values in their order,
    NaNs last), and their int64 indices (jax.lax.top_k)."""
    x = asarray(x)
    if x.dtype.is_complex or x.dtype.is_bool:
        raise DTypeError(f"top_k: x must hold real numbers, got {x.dtype.name}; cast it first.")
    count = top_k_count(x.shape, valid.integer(k, "top_k", "k"), "top_k")
    values, indices = _TOP_K((x,), {"k": count, "sorted": True})
    return values, indices


def einsum(subscripts: str, /, *operands: Any) -> Tensor:
    """Einstein summation of the operands (numpy's einsum: letters, '...', an optional '->';
    dtypes promote)."""
    if not isinstance(subscripts, str):
        raise ArgumentError(f"einsum: subscripts must be a str such as 'ij,jk->ik', got "
                            f"{valid.shown(subscripts)}.")
    if not operands:
        raise ShapeError("einsum: give at least one operand after the subscripts.")
    tensors, dtype = promote_all(operands)
    if dtype.is_bool:
        raise DTypeError("einsum: operands are bool; cast them to a numeric dtype first, e.g. "
                         "x.astype(tp.int64).")
    equation = "".join(subscripts.split())
    parsed = parse_einsum(equation, [t.shape for t in tensors], "einsum")
    valid.checked_size(tuple(parsed.sizes[c] for c in parsed.output), tensors[0]._backend, "einsum")
    return _EINSUM(tuple(tensors), {"equation": equation})
