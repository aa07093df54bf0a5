"""Linear-algebra ops (Python Array API names): matmul, vecdot, tensordot, outer.

Inputs promote to one dtype (Python scalars are weak); bool inputs are refused. Everything
but the MatMul kernel itself is composed from reshape, permute_dims, multiply and sum.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import bool_
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.families._common.axes import prod
from tensorplug.families._common.convert import caller, convert_pair
from tensorplug.families.elementwise.ops import conj, multiply
from tensorplug.families.linalg.spec import matmul_shape
from tensorplug.families.manipulation.ops import permute_dims, reshape
from tensorplug.families.reductions.ops import sum as _sum
from tensorplug.kernels.shape_rules import broadcast_shapes, normalize_axis

__all__ = ["matmul", "outer", "tensordot", "vecdot"]

_MATMUL = caller("MatMul", {"transpose_x": False, "transpose_y": False})


def _numeric_pair(op: str, x1: Any, x2: Any) -> tuple[Tensor, Tensor]:
    a, b = convert_pair(x1, x2, op)
    if a._dtype is bool_:
        raise DTypeError(f"{op} does not accept bool tensors; cast first, e.g. x.astype(tp.int64).")
    return a, b


def matmul(x1: Any, x2: Any, /) -> Tensor:
    """Matrix product over the last two axes, leading axes broadcast; a 1-d x1 (x2) acts as
    a row (column) vector whose axis is removed from the result."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._dtype is x2._dtype \
            and x1._dtype is not bool_ and x1._backend.ndim_of(x1._data) >= 2 \
            and x2._backend.ndim_of(x2._data) >= 2:
        return _MATMUL.binary(x1, x2)  # the common case; the kernel's spec explains a misfit
    a, b = _numeric_pair("matmul", x1, x2)
    sa, sb = a.shape, b.shape
    shape = matmul_shape(sa, sb, "matmul")  # the MatMul spec's rule, with numpy's 1-d cases
    if len(sa) > 1 and len(sb) > 1:
        return _MATMUL.binary(a, b)
    if len(sa) == 1:
        a = reshape(a, (1, sa[0]))
    if len(sb) == 1:
        b = reshape(b, (sb[0], 1))
    return reshape(_MATMUL.binary(a, b), shape)



def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Tensor:
    """Dot product of x1 and x2 along `axis` (counted in their broadcast shape): the sum of
    conj(x1) * x2, as the standard says for complex inputs; the other axes broadcast."""
    a, b = _numeric_pair("vecdot", x1, x2)
    sa, sb = a.shape, b.shape
    if not sa or not sb:
        raise ShapeError(f"vecdot needs inputs with at least one dimension, got shapes {sa} and {sb}.")
    shape = broadcast_shapes(sa, sb, op="vecdot")
    ax = normalize_axis(axis, len(shape), "vecdot") - len(shape)  # negative: counts from the right
    if -ax > len(sa) or -ax > len(sb) or sa[ax] != sb[ax]:
        raise ShapeError(f"vecdot: x1 (shape {sa}) and x2 (shape {sb}) must have the same size "
                         f"along axis {axis}; the contracted axis does not broadcast.")
    if a.dtype.is_complex:
        a = conj(a)
    return _sum(multiply(a, b), axis=ax, dtype=a.dtype)  # (sums of small ints keep their dtype)


def _axis_list(op: str, axes: Any, ndim: int) -> list[int]:
    if not isinstance(axes, (list, tuple)):  # one axis, or an array of them
        axes = tuple(axes) if getattr(axes, "ndim", 0) else (axes,)
    return [normalize_axis(a, ndim, op) for a in axes]


def tensordot(x1: Any, x2: Any, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Tensor:
    """Sum of products over the axes `axes` (an int n: the last n of x1 with the first n of
    x2; or a pair of axis sequences); the free axes of x1 then x2 remain."""
    a, b = _numeric_pair("tensordot", x1, x2)
    sa, sb = a.shape, b.shape
    if isinstance(axes, int) and not isinstance(axes, bool):
        n = operator.index(axes)
        if n < 0 or n > len(sa) or n > len(sb):
            raise ShapeError(f"tensordot: axes={n} must be between 0 and the smaller ndim of shapes "
                             f"{sa} and {sb}.")
        ax1, ax2 = list(range(len(sa) - n, len(sa))), list(range(n))
    else:
        pair: Any = axes
        try:
            first, second = pair
        except (TypeError, ValueError):
            raise ShapeError(f"tensordot: axes must be an int or a pair of axis sequences, got "
                             f"{axes!r}.") from None
        ax1, ax2 = _axis_list("tensordot", first, len(sa)), _axis_list("tensordot", second, len(sb))
    if len(ax1) != len(ax2) or len(set(ax1)) != len(ax1) or len(set(ax2)) != len(ax2):
        raise ShapeError(f"tensordot: axes {axes!r} must name as many distinct axes of x1 as of x2.")
    for i, j in zip(ax1, ax2):
        if sa[i] != sb[j]:
            raise ShapeError(f"tensordot: axis {i} of x1 (shape {sa}) has size {sa[i]} but axis {j} "
                             f"of x2 (shape {sb}) has size {sb[j]}; contracted sizes must be equal.")
    free1 = [i for i in range(len(sa)) if i not in ax1]
    free2 = [j for j in range(len(sb)) if j not in ax2]
    k = prod(sa[i] for i in ax1)
    left = reshape(permute_dims(a, free1 + ax1), (prod(sa[i] for i in free1), k))
    right = reshape(permute_dims(b, ax2 + free2), (k, prod(sb[j] for j in free2)))
    out = _MATMUL.binary(left, right)
    return reshape(out, tuple(sa[i] for i in free1) + tuple(sb[j] for j in free2))


def outer(x1: Any, x2: Any, /) -> Tensor:
    """Outer product of two 1-d tensors: out[i, j] = x1[i] * x2[j]."""
    a, b = _numeric_pair("outer", x1, x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(f"outer needs two 1-d inputs, got shapes {a.shape} and {b.shape}; flatten "
                         "them with reshape(x, (-1,)) first.")
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))
