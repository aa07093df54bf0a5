"""Default gradients of the pooling family, as TF's: MaxPool and AvgPool (2-D, 3-D) call their
Grad kernels; MaxPoolWithArgmax calls MaxPoolGrad for its values (its indices have no
gradient); Dilation2D calls Dilation2DBackpropInput and Dilation2DBackpropFilter.

The backward kernels are linear in dy, so they have gradients too (second order and beyond):
AvgPoolGrad's is AvgPool; MaxPoolGrad's and the Dilation2D backprops' gather the incoming
gradient at each window's first maximum (TF's MaxPoolGradGrad), written with ops: the window's
taps stacked (a loop over the few taps), argmax, one-hot. Their other inputs only choose where
dy goes, a piecewise-constant choice: their gradient is zero.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel
from tensorplug.families.nn.ops import one_hot
from tensorplug.kernel_helpers.windows import output_sizes, pool_window, tap_slices, window_taps

Grads = Mapping[str, Callable[[], Tensor]]
_NEG_INF = float("-inf")


def _stacked_taps(padded: Tensor, window: tuple[int, ...], out: tuple[int, ...], strides: tuple[int, ...],
                  dilations: tuple[int, ...] | None = None) -> Tensor:
    """The element of `padded` under each tap of every window, stacked last: out + (taps,)."""
    parts = []
    for tap in window_taps(window):
        slices = tuple((s.start, s.stop, s.step) for s in tap_slices(tap, out, strides, dilations))
        parts.append(kernel("StridedSlice", padded, slices=slices))
    return tp.stack(parts, axis=-1)


def _first_max(taps: Tensor) -> Tensor:
    """A one-hot mask (taps' dtype) of the first maximum along the last axis."""
    return one_hot(tp.argmax(taps, axis=-1), taps.shape[-1], dtype=taps.dtype)


def _gather_at_max(g: Tensor, x: Tensor, attrs: Any) -> Tensor:
    """g (x's shape) read at the first maximum of each pooling window of x: pooled shape."""
    window, strides, pad = pool_window(x.ndim, attrs["data_format"], attrs["filter_size"], attrs["strides"],
                                       attrs["pad"])
    out = output_sizes(x.shape, window, strides, pad)
    mask = _first_max(_stacked_taps(tp.pad(x, pad, constant_values=_NEG_INF), window, out, strides))
    return tp.sum(_stacked_taps(tp.pad(g, pad), window, out, strides) * mask, axis=-1)


def _pool_gradients(suffix: str) -> None:
    max_grad, avg_grad = f"MaxPool{suffix}Grad", f"AvgPool{suffix}Grad"

    @gradient(f"MaxPool{suffix}", inputs=("x",), outputs=("out",))
    def _max_pool(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        x, y = saved
        return {"x": lambda: kernel(max_grad, dy, x, y, **attrs)}

    @gradient(f"AvgPool{suffix}", inputs=("x",))
    def _avg_pool(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        (x,) = saved
        return {"x": lambda: kernel(avg_grad, dy, x, **attrs)}

    @gradient(max_grad, inputs=("input", "output"))
    def _max_pool_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        x, y = saved
        return {"dy": lambda: _gather_at_max(g, x, attrs), "input": lambda: tp.zeros_like(x),
                "output": lambda: tp.zeros_like(y)}

    @gradient(avg_grad, inputs=("input",))
    def _avg_pool_grad(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
        (x,) = saved
        return {"dy": lambda: kernel(f"AvgPool{suffix}", g, **attrs), "input": lambda: tp.zeros_like(x)}


_pool_gradients("")
_pool_gradients("3D")


@gradient("MaxPoolWithArgmax", inputs=("x",), outputs=("values",))
def _max_pool_with_argmax(dy: tuple[Tensor, Tensor], saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, values = saved
    window = {k: attrs[k] for k in ("filter_size", "strides", "pad")}
    return {"x": lambda: kernel("MaxPoolGrad", dy[0], x, values, data_format="channels_last", **window)}


@gradient("Dilation2D", inputs=("x", "filter"))
def _dilation2d(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, f = saved
    return {"x": lambda: kernel("Dilation2DBackpropInput", x, f, dy, **attrs),
            "filter": lambda: kernel("Dilation2DBackpropFilter", x, f, dy, **attrs)}


def _dilation_mask(x: Tensor, f: Tensor, attrs: Any) -> tuple[Tensor, Any]:
    """The one-hot first maximum of x + filter over each window's taps (N, OH, OW, C, taps),
    and the window geometry (window, strides, pad, dilations, output shape)."""
    window, strides, pad = pool_window(4, "channels_last", f.shape[:2], attrs["strides"], attrs["pad"])
    dil = (1, *attrs["dilations"], 1)
    out = output_sizes(x.shape, window, strides, pad, dil)
    taps = _stacked_taps(tp.pad(x, pad, constant_values=_NEG_INF), window, out, strides, dil)
    taps = taps + tp.permute_dims(tp.reshape(f, (-1, f.shape[2])), (1, 0))
    return _first_max(taps), (window, strides, pad, dil, out)


@gradient("Dilation2DBackpropInput", inputs=("x", "filter"))
def _dilation2d_backprop_input(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, f = saved

    def ddy() -> Tensor:
        mask, (window, strides, pad, dil, out) = _dilation_mask(x, f, attrs)
        return tp.sum(_stacked_taps(tp.pad(g, pad), window, out, strides, dil) * mask, axis=-1)

    return {"dy": ddy, "x": lambda: tp.zeros_like(x), "filter": lambda: tp.zeros_like(f)}


@gradient("Dilation2DBackpropFilter", inputs=("x", "filter"))
def _dilation2d_backprop_filter(g: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    x, f = saved

    def ddy() -> Tensor:
        mask, _ = _dilation_mask(x, f, attrs)
        return tp.sum(mask * tp.permute_dims(tp.reshape(g, (-1, f.shape[2])), (1, 0)), axis=-1)

    return {"dy": ddy, "x": lambda: tp.zeros_like(x), "filter": lambda: tp.zeros_like(f)}
