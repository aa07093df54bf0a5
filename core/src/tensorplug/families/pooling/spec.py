"""Kernel specs of the pooling family (TF.js's names): MaxPool, AvgPool (2-D), MaxPool3D,
AvgPool3D, their backward kernels MaxPoolGrad, AvgPoolGrad, MaxPool3DGrad, AvgPool3DGrad, and
MaxPoolWithArgmax; also Dilation2D (a windowed max of x + filter) and its two backward kernels.

Every pooling kernel takes the window as attributes: ``filter_size`` and ``strides`` (one int
per spatial axis), ``pad`` (one explicit (before, after) pair per spatial axis: the ops turn
'VALID' and 'SAME' into pairs with ``padding_pairs``) and ``data_format``, 'channels_last'
(N, *spatial, C) or 'channels_first' (N, C, *spatial). Padding never counts: a max ignores it,
an average divides by the number of real elements in its window (TF's rule for 'SAME').

``padding_pairs``, ``pooled_sizes`` and ``spatial_axes`` are the family's rules, shared with
the ops and (through ``tensorplug.kernel_helpers``) with the kernels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES, int64
from tensorplug.errors import ShapeError
from tensorplug.kernel_helpers.windows import output_sizes
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, as_int, op_prefix
from tensorplug.registry.core_entries import declare_spec

Pairs = tuple[tuple[int, int], ...]
DATA_FORMATS = ("channels_last", "channels_first")


def _floats(*names: str) -> dict[str, tuple[Any, ...]]:
    return {n: FLOAT_DTYPES for n in names}


def spatial_axes(ndim: int, data_format: str) -> tuple[int, ...]:
    """The spatial axes of an `ndim`-d input laid out as `data_format`."""
    return tuple(range(1, ndim - 1)) if data_format == "channels_last" else tuple(range(2, ndim))


def padding_pairs(sizes: Sequence[int], window: Sequence[int], strides: Sequence[int], padding: Any,
                  op: str | None = None, dilations: Sequence[int] | None = None) -> Pairs:
    """`padding` ('VALID', 'SAME' or one (before, after) pair per spatial axis) as explicit
    pairs for inputs of spatial `sizes`. 'SAME' pads so that the output has ceil(size / stride)
    entries, the odd element after (TF's rule); a dilated window spans (k - 1) * d + 1."""
    rank = len(sizes)
    span = [(k - 1) * d + 1 for k, d in zip(window, dilations or (1,) * rank)]
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * rank
        if mode == "SAME":
            pairs = []
            for n, k, s in zip(sizes, span, strides):
                total = max((-(-n // s) - 1) * s + k - n, 0)
                pairs.append((total // 2, total - total // 2))
            return tuple(pairs)
        raise ShapeError(f"{op_prefix(op)}padding {padding!r} is not 'VALID' or 'SAME'; pass one of "
                         f"them or {rank} (before, after) pairs.")
    try:
        pairs_in = [tuple(p) for p in padding]
        out = tuple((as_int(lo), as_int(hi)) for lo, hi in pairs_in)
    except (TypeError, ValueError):
        raise ShapeError(f"{op_prefix(op)}padding {padding!r} is not 'VALID', 'SAME' or {rank} "
                         "(before, after) pairs of ints.") from None
    if len(out) != rank:
        raise ShapeError(f"{op_prefix(op)}padding has {len(out)} pairs for {rank} spatial axes; give "
                         "one (before, after) pair per spatial axis.")
    return out


def pooled_sizes(sizes: Sequence[int], window: Sequence[int], strides: Sequence[int], pad: Pairs,
                 op: str | None = None, dilations: Sequence[int] | None = None) -> tuple[int, ...]:
    """The output's spatial sizes: floor((n + before + after - span) / stride) + 1 per axis.
    ShapeError naming `op` for a window, stride or dilation below 1, a negative pad, a pad
    as wide as the window (a window of padding only) or a window wider than the padded input."""
    rank = len(sizes)
    dilations = tuple(dilations or (1,) * rank)
    for what, values in (("window", window), ("strides", strides), ("dilations", dilations)):
        if len(values) != rank:
            raise ShapeError(f"{op_prefix(op)}{what} {tuple(values)} has {len(values)} entries for "
                             f"{rank} spatial axes; give one per spatial axis.")
        if any(v < 1 for v in values):
            raise ShapeError(f"{op_prefix(op)}{what} {tuple(values)} must be >= 1 on every axis.")
    if len(pad) != rank:
        raise ShapeError(f"{op_prefix(op)}pad has {len(pad)} pairs for {rank} spatial axes; give one "
                         "(before, after) pair per spatial axis.")
    for n, k, d, (lo, hi) in zip(sizes, window, dilations, pad):
        span = (k - 1) * d + 1
        if lo < 0 or hi < 0 or lo >= span or hi >= span:
            raise ShapeError(f"{op_prefix(op)}pad {tuple(pad)} is invalid for window {tuple(window)}: "
                             "each pad must be >= 0 and smaller than the window it pads.")
        if n + lo + hi < span:
            raise ShapeError(f"{op_prefix(op)}the window {tuple(window)} is larger than the padded "
                             f"input (spatial sizes {tuple(sizes)}, pad {tuple(pad)}); use a smaller "
                             "window or 'SAME' padding.")
    return output_sizes(sizes, window, strides, pad, dilations)


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(as_int(v) for v in value)


def _pairs(value: Any) -> Pairs:
    return tuple((as_int(lo), as_int(hi)) for lo, hi in value)


def _data_format(value: Any) -> str:
    if value not in DATA_FORMATS:
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got {value!r}")
    return str(value)


def _window_attrs(data_format: bool = True) -> tuple[AttrSpec, ...]:
    attrs: tuple[AttrSpec, ...] = (
        AttrSpec("filter_size", validate=_ints, doc="the window size per spatial axis"),
        AttrSpec("strides", validate=_ints, doc="the stride per spatial axis"),
        AttrSpec("pad", validate=_pairs, doc="one (before, after) pair per spatial axis"),
    )
    if data_format:
        attrs += (AttrSpec("data_format", "channels_last", _data_format,
                           "'channels_last' (N, *spatial, C) or 'channels_first' (N, C, *spatial)"),)
    return attrs


def pooled_shape(shape: Sequence[int], rank: int, attrs: Mapping[str, Any],
                 op: str | None = None) -> tuple[int, ...]:
    """The output shape of pooling an input of `shape` with `rank` spatial axes (attrs:
    filter_size, strides, pad, data_format)."""
    if len(shape) != rank + 2:
        raise ShapeError(f"{op_prefix(op)}the input must be {rank + 2}-d (batch, {rank} spatial axes, "
                         f"channels), got shape {tuple(shape)}.")
    axes = spatial_axes(len(shape), attrs.get("data_format", "channels_last"))
    sizes = pooled_sizes([shape[a] for a in axes], attrs["filter_size"], attrs["strides"], attrs["pad"], op)
    out = list(shape)
    for a, n in zip(axes, sizes):
        out[a] = n
    return tuple(out)


def _pool_rule(rank: int) -> Any:
    def rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
        x = infos[0]
        return [TensorInfo(pooled_shape(x.shape, rank, attrs), x.dtype)]
    return rule


def _pool_grad_rule(rank: int) -> Any:
    """dy (and output, for the max) must have the pooled shape of input; the result is input's."""
    def rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
        x = infos[1]
        want = pooled_shape(x.shape, rank, attrs)
        for name, info in zip(("dy", "output"), (infos[0], *infos[2:])):
            if info.shape != want:
                raise ShapeError(f"{name} has shape {info.shape}, but pooling an input of shape "
                                 f"{x.shape} gives {want}; pass the forward pass's tensors.")
        return [x]
    return rule


def _pool_specs(rank: int, suffix: str) -> tuple[KernelSpec, KernelSpec, KernelSpec, KernelSpec]:
    """MaxPool{suffix}, AvgPool{suffix} and their Grad kernels for `rank` spatial axes."""
    where = f"{rank}-D windows"
    made = (
        KernelSpec(name=f"MaxPool{suffix}", inputs=("x",), infer=_pool_rule(rank), attrs=_window_attrs(),
                   input_dtypes=_floats("x"), doc=f"the maximum over {where} (padding ignored)"),
        KernelSpec(name=f"AvgPool{suffix}", inputs=("x",), infer=_pool_rule(rank), attrs=_window_attrs(),
                   input_dtypes=_floats("x"),
                   doc=f"the mean over {where}, dividing by the count of real (unpadded) elements"),
        KernelSpec(name=f"MaxPool{suffix}Grad", inputs=("dy", "input", "output"), infer=_pool_grad_rule(rank),
                   attrs=_window_attrs(), input_dtypes=_floats("dy", "input", "output"),
                   same_dtype=("dy", "input", "output"),
                   doc=f"dy of MaxPool{suffix} sent back to each window's first maximum of input"),
        KernelSpec(name=f"AvgPool{suffix}Grad", inputs=("dy", "input"), infer=_pool_grad_rule(rank),
                   attrs=_window_attrs(), input_dtypes=_floats("dy", "input"), same_dtype=("dy", "input"),
                   doc=f"dy of AvgPool{suffix} spread evenly over each window's real elements"),
    )
    return tuple(declare_spec(s) for s in made)  # type: ignore[return-value]


MAX_POOL, AVG_POOL, MAX_POOL_GRAD, AVG_POOL_GRAD = _pool_specs(2, "")
MAX_POOL_3D, AVG_POOL_3D, MAX_POOL_3D_GRAD, AVG_POOL_3D_GRAD = _pool_specs(3, "3D")


def _argmax_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x = infos[0]
    shape = pooled_shape(x.shape, 2, attrs)
    return [TensorInfo(shape, x.dtype), TensorInfo(shape, int64)]


MAX_POOL_WITH_ARGMAX = declare_spec(KernelSpec(
    name="MaxPoolWithArgmax", inputs=("x",), outputs=("values", "indices"), infer=_argmax_rule,
    attrs=_window_attrs(data_format=False) + (
        AttrSpec("include_batch_in_index", False, as_bool,
                 "flat indices count the batch too: ((b * H + y) * W + x) * C + c"),),
    input_dtypes=_floats("x"),
    doc="MaxPool (channels last) and the flat index (y * W + x) * C + c of each window's first maximum",
))


def dilation_shape(x: Sequence[int], f: Sequence[int], attrs: Mapping[str, Any],
                   op: str | None = None) -> tuple[int, ...]:
    """The output shape of Dilation2D of x (N, H, W, C) with filter (KH, KW, C) (attrs: strides,
    dilations, pad)."""
    if len(x) != 4 or len(f) != 3 or f[2] != x[3]:
        raise ShapeError(f"{op_prefix(op)}x must be 4-d (N, H, W, C) and filter 3-d (KH, KW, C) with "
                         f"the same C, got shapes {tuple(x)} and {tuple(f)}.")
    sizes = pooled_sizes(x[1:3], f[:2], attrs["strides"], attrs["pad"], op, attrs["dilations"])
    return (x[0], *sizes, x[3])


def _dilation_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, f = infos
    return [TensorInfo(dilation_shape(x.shape, f.shape, attrs), x.dtype)]


def _dilation_grad_rule(result: int) -> Any:
    def rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
        x, f, dy = infos
        want = dilation_shape(x.shape, f.shape, attrs)
        if dy.shape != want:
            raise ShapeError(f"dy has shape {dy.shape}, but Dilation2D of shapes {x.shape} and "
                             f"{f.shape} gives {want}; pass the forward pass's gradient.")
        return [infos[result]]
    return rule


_DILATION_ATTRS = (
    AttrSpec("strides", validate=_ints, doc="(stride_h, stride_w)"),
    AttrSpec("pad", validate=_pairs, doc="one (before, after) pair per spatial axis"),
    AttrSpec("dilations", validate=_ints, doc="(rate_h, rate_w): the filter's taps are this far apart"),
)
_DILATION_DTYPES = _floats("x", "filter", "dy")
DILATION_2D = declare_spec(KernelSpec(
    name="Dilation2D", inputs=("x", "filter"), infer=_dilation_rule, attrs=_DILATION_ATTRS,
    input_dtypes=_DILATION_DTYPES, same_dtype=("x", "filter"),
    doc="grayscale morphological dilation: max over the window of x + filter, per channel",
))
DILATION_2D_BACKPROP_INPUT = declare_spec(KernelSpec(
    name="Dilation2DBackpropInput", inputs=("x", "filter", "dy"), infer=_dilation_grad_rule(0),
    attrs=_DILATION_ATTRS, input_dtypes=_DILATION_DTYPES, same_dtype=("x", "filter", "dy"),
    doc="dy of Dilation2D sent back to the x element of each window's first maximum",
))
DILATION_2D_BACKPROP_FILTER = declare_spec(KernelSpec(
    name="Dilation2DBackpropFilter", inputs=("x", "filter", "dy"), infer=_dilation_grad_rule(1),
    attrs=_DILATION_ATTRS, input_dtypes=_DILATION_DTYPES, same_dtype=("x", "filter", "dy"),
    doc="dy of Dilation2D summed onto the filter tap of each window's first maximum",
))
