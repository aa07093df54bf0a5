"""JVP rules of the reduction kernels.

Sum and Cumsum are linear. For Prod, Max, Min and EuclideanNorm each output element is a
function of the input elements it reduces, so its tangent is the sum over the reduced axes of
the tangent times the gradient at a cotangent of ones (the product of the others, the tie-split
indicator of the extremum, x / norm): exact with zeros and ties, as the gradients are. A real
output of a complex input (EuclideanNorm) keeps the real part. Cumprod's tangent sums, for each
output, each factor's tangent times the product of the other factors (exact with zeros; O(n^2)
along the axis, as its gradient).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import ops as tp
from ..autodiff.tape import Entry, gradient_thunks
from ..gradients._util import inverse_permutation, kernel, permute
from ..gradients.reductions import _MEMBER
from ..registry.jvps import JvpConfig, register_jvp
from ..specs._rules import normalize_axes, normalize_axis
from ..tensor import Tensor
from ._util import jvp_rule, linear

Tangents = tuple[Tensor | None, ...]

linear("Sum", "Cumsum")


def _by_gradient(name: str) -> None:
    """Register the tangent sum(t * gradient at ones) over the reduced axes for `name`."""

    def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
        (x,), (t,), (out,) = primals, tangents, outputs
        thunk = gradient_thunks(Entry(name, primals, attrs, outputs), tp.ones_like(out))[0]
        assert thunk is not None and t is not None  # (x is floating and has the tangent)
        weights = thunk()
        axes = normalize_axes(attrs["axis"], x.ndim)
        total = tp.sum(t * weights, axis=axes, keepdims=attrs["keepdims"])
        return tp.real(total) if total.dtype.is_complex and not out.dtype.is_complex else total

    register_jvp(JvpConfig(name, rule))


for _name in ("Prod", "Max", "Min", "EuclideanNorm"):
    _by_gradient(_name)


def _cumprod_tangent(x: Tensor, t: Tensor, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    """out_i' = sum over the factors x_k of output i of t_k * (that product without x_k): row k
    of an (n, n) block is x with x_k replaced by 1, whose running product gives them all."""
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    xt, tt = permute(x, perm), permute(t, perm)
    batch, n = xt.shape[:-1], xt.shape[-1]
    counter = tp.arange(n)
    k, i = tp.reshape(counter, (n, 1)), tp.reshape(counter, (1, n))
    rows = tp.where(k == i, 1, tp.reshape(xt, batch + (1, n)))
    without = kernel("Cumprod", rows, axis=len(batch) + 1, exclusive=exclusive, reverse=reverse)
    member = _MEMBER[(exclusive, reverse)](k, i)
    tk = tp.reshape(tt, batch + (n, 1))
    out = tp.sum(tp.where(member, without * tk, 0.0), axis=-2)
    return permute(out, inverse_permutation(perm))


@jvp_rule("Cumprod")
def _cumprod(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    (x,), (t,) = primals, tangents
    assert t is not None  # (forward mode calls the rule only with a tangent)
    flags = attrs["exclusive"], attrs["reverse"]
    if x.ndim == 0:  # one element: a length-1 axis
        return tp.reshape(_cumprod_tangent(tp.reshape(x, (1,)), tp.reshape(t, (1,)), 0, *flags), ())
    return _cumprod_tangent(x, t, normalize_axis(attrs["axis"], x.ndim), *flags)
