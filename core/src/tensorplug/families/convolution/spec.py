"""Kernel specs of the convolution family, under TF.js's names: Conv2D and Conv3D, and the
backward kernels their gradients call, Conv2DBackpropInput / Conv3DBackpropInputV2 (the
gradient of a convolution with respect to its input, also the transposed convolution) and
Conv2DBackpropFilter / Conv3DBackpropFilterV2 (with respect to its filter).

Every kernel of the family takes the same geometry attributes: ``strides`` and ``dilations``
(one int >= 1 per spatial dim), ``padding`` (one explicit (low, high) pair >= 0 per spatial
dim: the ops turn 'VALID', 'SAME' and other forms into pairs with ``conv_padding``),
``groups`` (XLA's feature_group_count: the input's channels split into `groups` blocks, each
convolved with its own block of output channels; TF.js's ``DepthwiseConv2dNative`` is
``Conv2D`` with groups = in_channels) and ``data_format`` ('NHWC' / 'NCHW' for 2-D, 'NDHWC' /
'NCDHW' for 3-D). The filter is laid out spatial dims, in_channels / groups, out_channels (TF's
HWIO / DHWIO) in either data format.

``conv_padding``, ``conv_output_shape`` and ``conv_transpose_shape`` are the family's shape
rules, shared with the ops in ``ops.convolution``.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_int, as_shape, op_prefix
from tensorplug.registry.core_entries import declare_spec

Shape = Sequence[int]
Pairs = tuple[tuple[int, int], ...]

#: data formats by spatial rank: (channels_last, channels_first)
DATA_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
#: kernel names by spatial rank: (forward, backprop input, backprop filter)
KERNEL_NAMES = {2: ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
                3: ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")}


def spatial_and_channels(shape: Shape, data_format: str) -> tuple[tuple[int, ...], int]:
    """The spatial sizes and the channel count of an input of `shape` in `data_format`."""
    if data_format[1] == "C":
        return tuple(shape[2:]), shape[1]
    return tuple(shape[1:-1]), shape[-1]


def conv_padding(padding: Any, sizes: Shape, kernel: Shape, strides: Shape, dilations: Shape,
                 op: str | None = None) -> Pairs:
    """One (low, high) pair per spatial dim from 'VALID' (none), 'SAME' (TF's and JAX's: the
    output has ceil(size / stride) elements, the odd element of padding at the end), an int
    (that many on both sides of every dim), one int per dim, or one (low, high) pair per dim."""
    rank = len(sizes)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * rank
        if mode == "SAME":
            out = []
            for n, k, s, d in zip(sizes, kernel, strides, dilations):
                total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
                out.append((total // 2, total - total // 2))
            return tuple(out)
        raise ShapeError(f"{op_prefix(op)}padding {padding!r} is not 'VALID' or 'SAME'; pass one of those, "
                         f"an int, or {rank} (low, high) pairs.")
    try:
        if _is_int(padding):
            pairs = ((padding, padding),) * rank
        else:
            pairs = tuple((p, p) if _is_int(p) else tuple(p) for p in padding)
        ok = len(pairs) == rank and all(len(p) == 2 and all(_is_int(v) and v >= 0 for v in p) for p in pairs)
    except TypeError:
        ok = False
    if not ok:
        raise ShapeError(f"{op_prefix(op)}padding {padding!r} does not fit {rank} spatial dim(s); pass "
                         f"'VALID', 'SAME', an int >= 0, or {rank} ints or (low, high) pairs of ints >= 0.")
    return tuple((operator.index(lo), operator.index(hi)) for lo, hi in pairs)


def _is_int(value: Any) -> bool:
    """An int, a numpy integer or a 0-d integer array, not a bool."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return hasattr(value, "__index__") and not getattr(value, "ndim", 0)


def conv_output_shape(x: Shape, filt: Shape, strides: Shape, padding: Pairs, dilations: Shape,
                      groups: int, data_format: str, op: str | None = None) -> tuple[int, ...]:
    """The output shape of convolving an input of shape `x` with a filter of shape `filt`;
    ShapeError naming `op` for ranks, channels or groups that do not fit, a filter of no
    elements along a spatial dim (jax and torch refuse it too), or a filter larger than the
    padded input."""
    rank = len(strides)
    head = op_prefix(op)
    if len(x) != rank + 2 or len(filt) != rank + 2:
        raise ShapeError(f"{head}a {rank}-d convolution takes an input and a filter of {rank + 2} dims "
                         f"(batch, {rank} spatial, channels in {data_format} order; {rank} spatial, "
                         f"in_channels / groups, out_channels), got shapes {tuple(x)} and {tuple(filt)}.")
    if 0 in filt[:rank]:
        raise ShapeError(f"{head}the filter (shape {tuple(filt)}) has size 0 along spatial dim "
                         f"{list(filt[:rank]).index(0)}; a filter needs at least one element along each "
                         f"of its {rank} spatial dims (the first {rank} of its shape).")
    sizes, channels = spatial_and_channels(x, data_format)
    kernel, per_group, out_channels = tuple(filt[:rank]), filt[rank], filt[rank + 1]
    if channels != per_group * groups:
        raise ShapeError(f"{head}the input (shape {tuple(x)}, {data_format}) has {channels} channels but the "
                         f"filter (shape {tuple(filt)}) takes {per_group} per group x {groups} group(s); the "
                         f"filter's dim {rank} must be in_channels / groups = {channels / groups:g}.")
    if out_channels % groups:
        raise ShapeError(f"{head}the filter's {out_channels} output channels (shape {tuple(filt)}) do not "
                         f"split into {groups} groups; make out_channels a multiple of groups.")
    spatial = []
    for i, (n, k, s, d, (lo, hi)) in enumerate(zip(sizes, kernel, strides, dilations, padding)):
        reach = (k - 1) * d + 1
        if n + lo + hi < reach:
            raise ShapeError(f"{head}spatial dim {i} of the input has {n} elements ({n + lo + hi} padded) "
                             f"but the filter reaches {reach} (size {k}, dilation {d}); pad more or use a "
                             "smaller filter.")
        spatial.append((n + lo + hi - reach) // s + 1)
    if data_format[1] == "C":
        return (x[0], out_channels, *spatial)
    return (x[0], *spatial, out_channels)


def conv_transpose_shape(x: Shape, filt: Shape, strides: Shape, padding: Any, dilations: Shape,
                         groups: int, data_format: str, output_padding: Shape,
                         op: str | None = None) -> tuple[tuple[int, ...], Pairs]:
    """(output shape, forward padding pairs) of the transposed convolution of an input of shape
    `x` (rank + 2 dims) with a filter of shape `filt` (rank + 2 dims, laid out as the forward
    convolution's, from the output to `x`): each spatial size is (n - 1) * stride + (k - 1) *
    dilation + 1 - low - high (n * stride with 'SAME'), plus `output_padding`; ShapeError naming
    `op` unless the forward convolution of that output gives back `x`'s shape."""
    rank = len(strides)
    sizes, _ = spatial_and_channels(x, data_format)
    kernel = tuple(filt[:rank])
    same = isinstance(padding, str) and padding.upper() == "SAME"
    pairs = ((0, 0),) * rank if same else conv_padding(padding, sizes, kernel, strides, dilations, op)
    rows = zip(sizes, kernel, strides, dilations, pairs, output_padding)
    out = tuple(n * s + extra if same else (n - 1) * s + (k - 1) * d + 1 - lo - hi + extra
                for n, k, s, d, (lo, hi), extra in rows)
    if same:
        pairs = conv_padding("SAME", out, kernel, strides, dilations, op)
    channels = filt[rank] * groups
    shape = (x[0], channels, *out) if data_format[1] == "C" else (x[0], *out, channels)
    back = None
    if min(out, default=1) >= 1:
        with contextlib.suppress(ShapeError):
            back = conv_output_shape(shape, filt, strides, pairs, dilations, groups, data_format)
    if back != tuple(x):
        raise ShapeError(f"{op_prefix(op)}no output of spatial sizes {out} convolves back to the input's "
                         f"shape {tuple(x)} with filter {tuple(filt)}, strides {tuple(strides)}, padding "
                         f"{pairs}, dilation {tuple(dilations)}; keep output_padding in 0..stride - 1 and "
                         "the padding smaller than the filter.")
    return shape, pairs


# -- attribute validators ----------------------------------------------------------------------------
def _per_dim(rank: int, what: str) -> Callable[[Any], tuple[int, ...]]:
    def validate(value: Any) -> tuple[int, ...]:
        out = (as_int(value),) * rank if isinstance(value, int) else tuple(as_int(v) for v in value)
        if len(out) != rank or any(not 1 <= v < 2**63 for v in out):
            raise ValueError(f"{what} needs {rank} ints >= 1 (one per spatial dim; below 2**63), got {out}")
        return out
    return validate


def _pairs(rank: int) -> Callable[[Any], Pairs]:
    def validate(value: Any) -> Pairs:
        pairs = tuple(tuple(as_int(v) for v in p) for p in value)
        if len(pairs) != rank or any(len(p) != 2 or not 0 <= min(p) <= max(p) < 2**63 for p in pairs):
            raise ValueError(f"padding needs {rank} (low, high) pairs of ints in 0..2**63 - 1, got {pairs}")
        return pairs  # type: ignore[return-value]
    return validate


def _data_format(rank: int) -> Callable[[Any], str]:
    last, first = DATA_FORMATS[rank]

    def validate(value: Any) -> str:
        named = {"channels_last": last, "channels_first": first, last: last, first: first}
        if not isinstance(value, str) or value not in named:
            raise ValueError(f"data_format must be '{last}' or '{first}' (or 'channels_last' / "
                             f"'channels_first'), got {value!r}")
        return named[value]
    return validate


def _groups(value: Any) -> int:
    groups = as_int(value)
    if groups < 1:
        raise ValueError(f"groups must be >= 1, got {groups}")
    return groups


def _geometry(rank: int) -> tuple[AttrSpec, ...]:
    return (AttrSpec("strides", 1, _per_dim(rank, "strides"), "the step along each spatial dim"),
            AttrSpec("padding", ((0, 0),) * rank, _pairs(rank), "(low, high) zeros on each spatial dim"),
            AttrSpec("dilations", 1, _per_dim(rank, "dilations"), "the spacing of the filter's taps"),
            AttrSpec("groups", 1, _groups, "feature groups (in_channels for a depthwise conv)"),
            AttrSpec("data_format", DATA_FORMATS[rank][0], _data_format(rank),
                     "where the channels are: last or right after the batch"))


def _geometry_of(attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    return (attrs["strides"], attrs["padding"], attrs["dilations"], attrs["groups"], attrs["data_format"])


def _conv_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, filt = infos
    return [TensorInfo(conv_output_shape(x.shape, filt.shape, *_geometry_of(attrs)), x.dtype)]


def _expect_dy(dy: TensorInfo, x: Shape, filt: Shape, attrs: Mapping[str, Any]) -> None:
    want = conv_output_shape(x, filt, *_geometry_of(attrs))
    if dy.shape != want:
        raise ShapeError(f"dy has shape {dy.shape}, but the convolution of an input of shape {tuple(x)} with "
                         f"a filter of shape {tuple(filt)} gives {want}; pass dy of that shape.")


def _backprop_input_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    dy, filt = infos
    _expect_dy(dy, attrs["input_shape"], filt.shape, attrs)
    return [TensorInfo(attrs["input_shape"], dy.dtype)]


def _backprop_filter_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, dy = infos
    _expect_dy(dy, x.shape, attrs["filter_shape"], attrs)
    return [TensorInfo(attrs["filter_shape"], x.dtype)]


def _declare(rank: int) -> tuple[KernelSpec, KernelSpec, KernelSpec]:
    conv, backprop_input, backprop_filter = KERNEL_NAMES[rank]
    floats = FLOAT_DTYPES
    return (
        declare_spec(KernelSpec(
            name=conv, inputs=("x", "filter"), infer=_conv_rule, attrs=_geometry(rank),
            input_dtypes={"x": floats, "filter": floats}, same_dtype=("x", "filter"),
            doc=f"the {rank}-d convolution (cross-correlation) of x with filter; TF.js's Depthwise"
                f"Conv{rank}dNative is this kernel with groups = in_channels")),
        declare_spec(KernelSpec(
            name=backprop_input, inputs=("dy", "filter"), infer=_backprop_input_rule,
            attrs=(AttrSpec("input_shape", validate=as_shape, doc="the shape of the convolution's input"),
                   *_geometry(rank)),
            input_dtypes={"dy": floats, "filter": floats}, same_dtype=("dy", "filter"),
            doc=f"the gradient of {conv} with respect to its input (the transposed convolution of dy)")),
        declare_spec(KernelSpec(
            name=backprop_filter, inputs=("x", "dy"), infer=_backprop_filter_rule,
            attrs=(AttrSpec("filter_shape", validate=as_shape, doc="the shape of the convolution's filter"),
                   *_geometry(rank)),
            input_dtypes={"x": floats, "dy": floats}, same_dtype=("x", "dy"),
            doc=f"the gradient of {conv} with respect to its filter")),
    )


CONV_2D, CONV_2D_BACKPROP_INPUT, CONV_2D_BACKPROP_FILTER = _declare(2)
CONV_3D, CONV_3D_BACKPROP_INPUT_V2, CONV_3D_BACKPROP_FILTER_V2 = _declare(3)

__all__ = ["DATA_FORMATS", "KERNEL_NAMES", "conv_output_shape", "conv_padding", "conv_transpose_shape",
           "spatial_and_channels"]
