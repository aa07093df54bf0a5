"""Kernel specs of the fused family, TF.js's fused kernels: FusedMatMul (TF.js's
``_FusedMatMul``), FusedConv2D and FusedDepthwiseConv2D. Each computes a product (a matrix
product or a 2-d convolution), adds a bias and applies an activation in one kernel.

Their optional inputs are always passed, as flags say whether they count: ``bias`` counts when
``has_bias`` is true, ``prelu_weights`` when ``activation`` is 'prelu'; an input that does not
count is a 0-d placeholder that kernels ignore (the ops pass a zero). A bias of a matrix
product broadcasts to the product's shape; a bias of a convolution is () or (out_channels,),
added along the channel axis. The prelu weights broadcast to the output's shape.

FusedConv2D takes Conv2D's geometry (``specs.convolution``); FusedDepthwiseConv2D takes the
depthwise filter (height, width, in_channels, multiplier) as TF.js does and computes Conv2D
with groups = in_channels on that filter reshaped to (height, width, 1, in_channels *
multiplier) (``depthwise_as_grouped``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.families.convolution.spec import _geometry, conv_output_shape, spatial_and_channels
from tensorplug.families.linalg.spec import matmul_shape
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, broadcast_shapes, op_prefix
from tensorplug.registry.core_entries import declare_spec

__all__ = ["ACTIVATIONS", "broadcasts_into", "depthwise_as_grouped", "fused_input_shapes"]

#: TF.js's fused activations
ACTIVATIONS = ("linear", "relu", "relu6", "elu", "leakyrelu", "prelu", "sigmoid")


def _activation(value: Any) -> str:
    if value not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(map(repr, ACTIVATIONS))}, got {value!r}")
    return str(value)


def _alpha(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"leakyrelu_alpha must be a real number, got {value!r}")
    return float(value)


_FUSION = (
    AttrSpec("activation", "linear", _activation, "the activation applied after the bias"),
    AttrSpec("leakyrelu_alpha", 0.2, _alpha, "the slope below zero of the 'leakyrelu' activation"),
    AttrSpec("has_bias", False, as_bool, "whether the bias input is added (else it is a placeholder)"),
)


def depthwise_as_grouped(filter_shape: Sequence[int]) -> tuple[int, ...]:
    """The Conv2D filter (groups = in_channels) of a depthwise filter (h, w, in, multiplier)."""
    h, w, channels, multiplier = filter_shape
    return (h, w, 1, channels * multiplier)


def fused_input_shapes(out: Sequence[int], bias: Sequence[int] | None, prelu: Sequence[int] | None,
                       channels_axis: int | None, op: str | None = None) -> None:
    """ShapeError naming `op` unless `bias` fits an output of shape `out` (broadcasts to it
    without growing it; for a convolution, whose `channels_axis` is given: () or (channels,))
    and the `prelu` weights broadcast to it likewise. None: the input does not count."""
    head = op_prefix(op)
    out = tuple(out)
    if bias is not None:
        if channels_axis is not None:
            if tuple(bias) not in ((), (out[channels_axis],)):
                raise ShapeError(f"{head}the bias has shape {tuple(bias)}; a convolution's bias is one "
                                 f"number per output channel, shape ({out[channels_axis]},), or a scalar.")
        elif not broadcasts_into(bias, out):
            raise ShapeError(f"{head}the bias (shape {tuple(bias)}) does not broadcast to the product's "
                             f"shape {out}; give a bias of shape ({out[-1] if out else 1},) or {out}.")
    if prelu is not None and not broadcasts_into(prelu, out):
        raise ShapeError(f"{head}the prelu weights (shape {tuple(prelu)}) do not broadcast to the output's "
                         f"shape {out}; give one weight per output channel or the output's shape.")


def broadcasts_into(shape: Sequence[int], out: tuple[int, ...]) -> bool:
    """Whether `shape` broadcasts to `out` without growing it."""
    try:
        return broadcast_shapes(out, shape) == out
    except ShapeError:
        return False


def _optional(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> tuple[Any, Any]:
    bias, prelu = infos[2], infos[3]
    return (bias.shape if attrs["has_bias"] else None,
            prelu.shape if attrs["activation"] == "prelu" else None)


def _matmul_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    a, b = infos[0], infos[1]
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise ShapeError(f"FusedMatMul needs a and b with at least 2 dimensions, got {a.shape} and {b.shape} "
                         "(make a vector a matrix with tp.expand_dims)")
    out = matmul_shape(a.shape, b.shape, "FusedMatMul", transpose_x=attrs["transpose_a"],
                       transpose_y=attrs["transpose_b"])
    fused_input_shapes(out, *_optional(infos, attrs), None, "FusedMatMul")
    return [TensorInfo(out, a.dtype)]


def _conv_out(name: str, infos: Sequence[TensorInfo], attrs: Mapping[str, Any],
              filter_shape: Sequence[int], groups: int) -> list[TensorInfo]:
    x = infos[0]
    fmt = attrs["data_format"]
    out = conv_output_shape(x.shape, filter_shape, attrs["strides"], attrs["padding"], attrs["dilations"],
                            groups, fmt, name)
    fused_input_shapes(out, *_optional(infos, attrs), 1 if fmt[1] == "C" else len(out) - 1, name)
    return [TensorInfo(out, x.dtype)]


def _conv_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return _conv_out("FusedConv2D", infos, attrs, infos[1].shape, attrs["groups"])


def _depthwise_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    x, filt = infos[0], infos[1]
    if len(filt.shape) != 4 or len(x.shape) != 4:
        raise ShapeError("FusedDepthwiseConv2D takes a 4-d input and a 4-d filter (height, width, "
                         f"in_channels, "
                         f"multiplier), got shapes {x.shape} and {filt.shape}.")
    channels = spatial_and_channels(x.shape, attrs["data_format"])[1]
    if filt.shape[2] != channels:
        raise ShapeError(f"FusedDepthwiseConv2D: the filter (shape {filt.shape}) takes {filt.shape[2]} "
                         "channels "
                         f"but the input (shape {x.shape}, {attrs['data_format']}) has {channels}; its dim 2 "
                         "must be the input's channels.")
    return _conv_out("FusedDepthwiseConv2D", infos, attrs, depthwise_as_grouped(filt.shape), max(channels, 1))


_INPUTS = ("bias", "prelu_weights")
_DTYPES = dict.fromkeys(_INPUTS, FLOAT_DTYPES)

FUSED_MATMUL = declare_spec(KernelSpec(
    name="FusedMatMul", inputs=("a", "b", *_INPUTS), infer=_matmul_rule,
    attrs=(AttrSpec("transpose_a", False, as_bool, "use a with its last two axes swapped"),
           AttrSpec("transpose_b", False, as_bool, "use b with its last two axes swapped"), *_FUSION),
    input_dtypes={"a": FLOAT_DTYPES, "b": FLOAT_DTYPES, **_DTYPES}, same_dtype=("a", "b", *_INPUTS),
    doc="activation(a @ b + bias) (TF.js's _FusedMatMul); leading (batch) axes broadcast"))

FUSED_CONV_2D = declare_spec(KernelSpec(
    name="FusedConv2D", inputs=("x", "filter", *_INPUTS), infer=_conv_rule,
    attrs=(*_geometry(2), *_FUSION),
    input_dtypes={"x": FLOAT_DTYPES, "filter": FLOAT_DTYPES, **_DTYPES},
    same_dtype=("x", "filter", *_INPUTS),
    doc="activation(Conv2D(x, filter) + bias), bias along the channel axis"))

FUSED_DEPTHWISE_CONV_2D = declare_spec(KernelSpec(
    name="FusedDepthwiseConv2D", inputs=("x", "filter", *_INPUTS), infer=_depthwise_rule,
    attrs=(*(a for a in _geometry(2) if a.name != "groups"), *_FUSION),
    input_dtypes={"x": FLOAT_DTYPES, "filter": FLOAT_DTYPES, **_DTYPES},
    same_dtype=("x", "filter", *_INPUTS),
    doc="activation(depthwise conv of x with filter (h, w, in_channels, multiplier) + bias)"))
