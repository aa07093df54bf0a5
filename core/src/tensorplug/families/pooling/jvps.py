"""JVP rules of the pooling kernels.

AvgPool (2-D, 3-D) is linear; the backward kernels (AvgPoolGrad, MaxPoolGrad, the Dilation2D
backprops) are linear in dy, their other inputs only choosing where dy goes (a piecewise-constant
choice: no tangent). A max takes the tangent at each window's first maximum (JAX reads it
there too): MaxPool and MaxPoolWithArgmax read it at the argmax MaxPoolWithArgmax gives;
MaxPool3D and Dilation2D, which have no argmax kernel, read it with the dy-gradient of their
backward kernel (a backward kernel is the transpose of the forward map's linearization, so its
gradient in dy is that linearization).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.errors import AutodiffError
from tensorplug.families._common.gradient_util import kernel
from tensorplug.families._common.jvp_util import jvp_rule, linear
from tensorplug.families.indexing.ops import take_along_axis
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

Tangents = tuple[Tensor | None, ...]
_WINDOW = ("filter_size", "strides", "pad")

linear("AvgPool", "AvgPool3D")
linear("AvgPoolGrad", "AvgPool3DGrad", "MaxPoolGrad", "MaxPool3DGrad", positions=(0,))
linear("Dilation2DBackpropInput", "Dilation2DBackpropFilter", positions=(2,))


def _at_argmax(t: Tensor, indices: Tensor, include_batch: bool) -> Tensor:
    """t (N, H, W, C) read at MaxPoolWithArgmax's flat `indices` (indices' shape)."""
    rows = 1 if include_batch else t.shape[0]
    picked = take_along_axis(tp.reshape(t, (rows, -1)), tp.reshape(indices, (rows, -1)), axis=1)
    return tp.reshape(picked, indices.shape)


@jvp_rule("MaxPoolWithArgmax")
def _max_pool_with_argmax(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                          attrs: Mapping[str, Any]) -> tuple[Tensor | None, None]:
    (t,), (_, indices) = tangents, outputs
    return (None if t is None else _at_argmax(t, indices, attrs["include_batch_in_index"])), None


@jvp_rule("MaxPool")
def _max_pool(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
              attrs: Mapping[str, Any]) -> Tensor | None:
    (x,), (t,) = primals, tangents
    if t is None:
        return None
    first = attrs["data_format"] == "channels_first"
    if first:  # (MaxPoolWithArgmax is channels last)
        x, t = tp.permute_dims(x, (0, 2, 3, 1)), tp.permute_dims(t, (0, 2, 3, 1))
    _, indices = kernel("MaxPoolWithArgmax", x, **{k: attrs[k] for k in _WINDOW})
    out = _at_argmax(t, indices, False)
    return tp.permute_dims(out, (0, 3, 1, 2)) if first else out


def _backprop_linearization(backprop: str, inputs: tuple[Tensor, ...], dy: int, attrs: Mapping[str, Any],
                            like: Tensor, t: Tensor) -> Tensor:
    """The gradient of the backward kernel `backprop` in its dy (input `dy`) at `t`: the forward
    kernel's linearization applied to `t` (`like`: a tensor of the backward kernel's output shape)."""
    thunk = gradient_thunks(Entry(backprop, inputs, attrs, (like,)), t)[dy]
    if thunk is None:
        raise AutodiffError(f"the gradient of '{backprop}' gives none for dy, which the JVP rule of its "
                            "forward kernel reads; give it one (its transpose, gathering at the maxima).")
    result: Tensor = thunk()
    return result


@jvp_rule("MaxPool3D")
def _max_pool3d(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                attrs: Mapping[str, Any]) -> Tensor | None:
    (x,), (t,), (out,) = primals, tangents, outputs
    if t is None:
        return None
    return _backprop_linearization("MaxPool3DGrad", (out, x, out), 0, attrs, x, t)  # (dy, input, output)


@jvp_rule("Dilation2D")
def _dilation2d(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                attrs: Mapping[str, Any]) -> Tensor | None:
    (x, f), (tx, tf), (out,) = primals, tangents, outputs
    inputs = (x, f, out)  # Dilation2DBackprop*(x, filter, dy)
    total = None
    if tx is not None:
        total = _backprop_linearization("Dilation2DBackpropInput", inputs, 2, attrs, x, tx)
    if tf is not None:
        term = _backprop_linearization("Dilation2DBackpropFilter", inputs, 2, attrs, f, tf)
        total = term if total is None else total + term
    return total
