"""JVP rules of the reduction kernels.

Sum and Cumsum are linear. For Prod, Max, Min and EuclideanNorm each output element is a
function of the input elements it reduces, so its tangent is the sum over the reduced axes of
the tangent times the gradient at a cotangent of ones (the product of the others, the tie-split
indicator of the extremum, x / norm): exact with zeros and ties, as the gradients are. A real
output of a complex input (EuclideanNorm) keeps the real part. Cumprod's tangent sums, for each
output, each factor's tangent times the product of the other factors: J t for the Jacobian J whose
transpose its gradient applies (``gradients.reductions.cumprod_jacobian_product``; exact with
zeros, O(n^2) along the axis).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.jvp_util import jvp_rule, linear
from tensorplug.families.reductions.gradients import cumprod_jacobian_product
from tensorplug.kernels.shape_rules import normalize_axes
from tensorplug.registry.core_entries import declare_jvp
from tensorplug.registry.jvps import JvpConfig
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

Tangents = tuple[Tensor | None, ...]

linear("Sum", "Cumsum")


def _by_gradient(name: str) -> None:
    """Declare the tangent sum(t * gradient at ones) over the reduced axes for `name`."""

    def rule(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
        (x,), (t,), (out,) = primals, tangents, outputs
        thunk = gradient_thunks(Entry(name, primals, attrs, outputs), tp.ones_like(out))[0]
        assert thunk is not None and t is not None  # (x is floating and has the tangent)
        weights = thunk()
        axes = normalize_axes(attrs["axis"], x.ndim)
        total = tp.sum(t * weights, axis=axes, keepdims=attrs["keepdims"])
        return tp.real(total) if total.dtype.is_complex and not out.dtype.is_complex else total

    declare_jvp(JvpConfig(name, rule))


for _name in ("Prod", "Max", "Min", "EuclideanNorm"):
    _by_gradient(_name)


@jvp_rule("Cumprod")
def _cumprod(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
             attrs: Mapping[str, Any]) -> Tensor:
    (x,), (t,) = primals, tangents
    assert t is not None  # (forward mode calls the rule only with a tangent)
    return cumprod_jacobian_product(x, t, attrs, transposed=False)
