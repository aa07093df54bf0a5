"""Default gradients of the reduction kernels: Sum, Prod, Max, Min, EuclideanNorm, Cumsum, Cumprod.

Prod and Cumprod never divide by the input, so zeros (one or several) get exact gradients.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.convert import caller
from tensorplug.families._common.gradient_util import gradient, inverse_permutation, kernel, permute
from tensorplug.families.reductions.spec import reduced_shape
from tensorplug.kernels.shape_rules import normalize_axes, normalize_axis

Grads = Mapping[str, Callable[[], Tensor]]


_RESHAPE = caller("Reshape")
_BROADCAST_TO = caller("BroadcastTo")


def _expand(g: Tensor, shape: tuple[int, ...], axes: Sequence[int]) -> Tensor:
    """A reduced tensor (with or without keepdims) broadcast back to the input `shape`. Without
    keepdims, a reduction over leading axes (every axis, say) broadcasts back as it is; other
    axes are put back as 1s first."""
    g_shape = g.shape
    if not (g_shape == shape[len(axes):] and tuple(axes) == tuple(range(len(axes)))):
        kept = reduced_shape(shape, axes, keepdims=True)
        if g_shape != kept:
            g = _RESHAPE((g,), {"shape": kept})
            g_shape = kept
    return g if g_shape == shape else _BROADCAST_TO((g,), {"shape": shape})


@gradient("Sum", inputs=("x",))
def _sum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: _expand(dy, x.shape, normalize_axes(attrs["axis"], x.ndim))}


@gradient("Prod", inputs=("x",))
def _prod(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        # d/dx_i prod(x) = prod of the others = (product before i) * (product after i), the
        # exclusive running products from both ends along the reduced axes flattened into one
        axes = normalize_axes(attrs["axis"], x.ndim)
        kept = [i for i in range(x.ndim) if i not in axes]
        perm = kept + list(axes)
        batch = tuple(x.shape[i] for i in kept)
        n = math.prod(x.shape[i] for i in axes)
        flat = tp.reshape(permute(x, perm), batch + (n,))
        last = len(batch)
        before = kernel("Cumprod", flat, axis=last, exclusive=True)
        after = kernel("Cumprod", flat, axis=last, exclusive=True, reverse=True)
        g = before * after * tp.reshape(dy, batch + (1,))
        g = tp.reshape(g, tuple(x.shape[i] for i in perm))
        return permute(g, inverse_permutation(perm))

    return {"x": dx}


def _extremum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """Max/Min: dy goes to the elements equal to the result, split equally among ties."""
    x, y = saved

    def dx() -> Tensor:
        axes = normalize_axes(attrs["axis"], x.ndim)
        kept = reduced_shape(x.shape, axes, keepdims=True)
        hits = tp.astype(x == tp.reshape(y, kept), dy.dtype)
        count = tp.sum(hits, axis=axes, keepdims=True)
        return hits / count * tp.reshape(dy, kept)

    return {"x": dx}


gradient("Max", inputs=("x",), outputs=("out",))(_extremum)
gradient("Min", inputs=("x",), outputs=("out",))(_extremum)


@gradient("EuclideanNorm", inputs=("x",), outputs=("out",))
def _euclidean_norm(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    """x / norm (conj(x) / norm for a complex x, as JAX), 0 where the norm is 0 (the
    subgradient PyTorch and JAX's safe norms give), written so that it differentiates again."""
    x, norm = saved

    def dx() -> Tensor:
        axes = normalize_axes(attrs["axis"], x.ndim)
        scale = _expand(dy / tp.where(norm == 0, 1.0, norm), x.shape, axes)
        return scale * (tp.conj(x) if x.dtype.is_complex else x)

    return {"x": dx}


@gradient("Cumsum")
def _cumsum(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    # each x_j feeds the outputs after it (before it, if reversed): a running sum of dy the
    # other way round, with the same exclusivity
    return {"x": lambda: kernel("Cumsum", dy, axis=attrs["axis"], exclusive=attrs["exclusive"],
                                reverse=not attrs["reverse"])}


_MEMBER = {  # (exclusive, reverse) -> does output i's product include x_k?
    (False, False): tp.less_equal,   # k <= i
    (True, False): tp.less,          # k < i
    (False, True): tp.greater_equal,  # k >= i
    (True, True): tp.greater,        # k > i
}


def cumprod_jacobian_product(x: Tensor, v: Tensor, attrs: Mapping[str, Any], *, transposed: bool) -> Tensor:
    """J v, or J^T v if `transposed`, for J the Jacobian of Cumprod (its `attrs`) at `x`: the JVP
    of tangent `v`, or the gradient for cotangent `v`. J[i, k] is output i's product without x_k
    when x_k is one of its factors, else 0. Row k of an (n, n) block is x with x_k replaced by 1;
    its running product gives every "product without x_k" at once: O(n^2) memory, exact with
    zeros."""
    scalar = x.ndim == 0  # one element: a length-1 axis
    if scalar:
        x, v = tp.reshape(x, (1,)), tp.reshape(v, (1,))
    exclusive, reverse = attrs["exclusive"], attrs["reverse"]
    axis = 0 if scalar else normalize_axis(attrs["axis"], x.ndim)
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    xt = permute(x, perm)
    batch, n = xt.shape[:-1], xt.shape[-1]
    counter = tp.arange(n)
    k, i = tp.reshape(counter, (n, 1)), tp.reshape(counter, (1, n))
    rows = tp.where(k == i, 1, tp.reshape(xt, batch + (1, n)))
    without = kernel("Cumprod", rows, axis=len(batch) + 1, exclusive=exclusive, reverse=reverse)
    member = _MEMBER[(exclusive, reverse)](k, i)
    # blocks are indexed [k, i]: J^T v sums over the outputs i, J v over the factors k
    vt = tp.reshape(permute(v, perm), batch + ((1, n) if transposed else (n, 1)))
    out = tp.sum(tp.where(member, without * vt, 0.0), axis=-1 if transposed else -2)
    out = permute(out, inverse_permutation(perm))
    return tp.reshape(out, ()) if scalar else out


@gradient("Cumprod", inputs=("x",))
def _cumprod(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved
    return {"x": lambda: cumprod_jacobian_product(x, dy, attrs, transposed=True)}
