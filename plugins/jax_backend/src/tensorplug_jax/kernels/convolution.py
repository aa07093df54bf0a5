"""Convolution kernels: Conv2D, Conv3D and their backprop kernels, all from
``jax.lax.conv_general_dilated`` (the backprop kernels as its exact transposes,
``jax.linear_transpose`` in the input or the filter), compiled once per geometry (every
attribute is static)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
from jax import lax

from tensorplug_jax.kernels._jit import with_attrs

_GEOMETRY = ("strides", "padding", "dilations", "groups", "data_format")


def _conv(x: Any, w: Any, strides: tuple[int, ...], padding: tuple[tuple[int, int], ...],
          dilations: tuple[int, ...], groups: int, data_format: str) -> Any:
    spatial = "DHW"[3 - len(strides):]
    return lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilations,
                                    dimension_numbers=(data_format, spatial + "IO", data_format),
                                    feature_group_count=groups)


def _backprop_input(dy: Any, w: Any, input_shape: tuple[int, ...], **geometry: Any) -> Any:
    transpose = jax.linear_transpose(lambda x: _conv(x, w, **geometry),
                                     jax.ShapeDtypeStruct(input_shape, dy.dtype))
    return transpose(dy)[0]


def _backprop_filter(x: Any, dy: Any, filter_shape: tuple[int, ...], **geometry: Any) -> Any:
    transpose = jax.linear_transpose(lambda w: _conv(x, w, **geometry),
                                     jax.ShapeDtypeStruct(filter_shape, x.dtype))
    return transpose(dy)[0]


_CONV = with_attrs(_conv, static=_GEOMETRY)
_INPUT = with_attrs(_backprop_input, static=("input_shape", *_GEOMETRY))
_FILTER = with_attrs(_backprop_filter, static=("filter_shape", *_GEOMETRY))

KERNELS: dict[str, Callable[..., Any]] = {
    "Conv2D": _CONV,
    "Conv2DBackpropInput": _INPUT,
    "Conv2DBackpropFilter": _FILTER,
    "Conv3D": _CONV,
    "Conv3DBackpropInputV2": _INPUT,
    "Conv3DBackpropFilterV2": _FILTER,
}
