"""The convolution layers: ``Conv1D``, ``Conv2D``, ``Conv3D`` (over ``tp.nn.fused_conv``),
``Conv2DTranspose``, ``DepthwiseConv2D`` and ``SeparableConv2D`` (over ``tp.nn.conv_transpose``,
``fused_conv`` with one group per channel, ``separable_conv``). Inputs are channels-last
(batch, spatial..., channels) unless ``data_format="channels_first"``; kernels are laid out as
``tp.nn.conv``'s (spatial..., in_channels / groups, filters: HWIO), as Keras's."""

from __future__ import annotations

from typing import Any, ClassVar

from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.errors import ShapeError
from tensorplug.families.convolution.ops import conv_transpose, separable_conv
from tensorplug.families.elementwise.ops import add
from tensorplug.families.fused.ops import fused_conv
from tensorplug.families.manipulation.ops import reshape
from tensorplug.models import initializers
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.inputs import Initial, as_input, expect_rank, expect_size, spatial_layout
from tensorplug.models.module import Module

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D"]

class _Convolution(Module):
    """What the convolution layers share: their geometry arguments, the checks of their input
    (rank, channels), building from the first input's channels, the bias and the activation."""

    rank: ClassVar[int] = 2

    def __init__(self, kernel_size: Any, strides: Any, padding: Any, dilation_rate: Any, activation: Any,
                 use_bias: bool, data_format: str, in_channels: int | None) -> None:
        self.kernel_size = args.per_dim(kernel_size, self.rank, self, "kernel_size")
        self.strides = args.per_dim(strides, self.rank, self, "strides")
        self.padding = args.padding(padding, self)
        self.dilation_rate = args.per_dim(dilation_rate, self.rank, self, "dilation_rate")
        self.activation = args.activation(activation, self)
        self.use_bias = args.flag(use_bias, self, "use_bias")
        self.data_format = args.data_format(data_format, self)
        self.in_channels = (None if in_channels is None else
                            args.positive_int(in_channels, self, "in_channels"))
        self.built = False

    def _initializers(self, seed: int | None, key: Tensor | None, bias_initializer: Any,
                      **kernels: Any) -> None:
        """The seed (or key) and the initializers of the layer's variables (the kernels' by name, checked
        by the subclass, in their order; the bias's last); then build at once when in_channels
        was given (subclasses call it last in __init__)."""
        bias = args.initializer(bias_initializer, self, "bias_initializer")
        self._initial = Initial(args.seed_or_key(seed, key, self), **kernels, bias=bias)
        if self.in_channels is not None:
            self.make_variables(self.in_channels, None)
            del self._initial
            self.built = True

    @property
    def _channels_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make the variables for inputs of `input_shape` (their channels)."""
        Initial.of(self)
        expect_rank(input_shape, self.rank + 2, spatial_layout(self.rank, self.data_format))
        channels = input_shape[self._channels_axis]
        if channels is None:
            raise ShapeError(f"the channels axis of the input must be known to build the layer, got shape "
                             f"{tuple(input_shape)}.")
        self.in_channels = int(channels)
        self.make_variables(self.in_channels, dtype)
        del self._initial

    def make_variables(self, channels: int, dtype: Any) -> None:
        """Make the layer's variables for inputs of `channels` channels."""
        raise NotImplementedError

    def _variable(self, name: str, shape: tuple[int, ...], dtype: Any) -> Variable:
        return self._initial.variable(name, shape, dtype)

    def _bias(self, size: int, dtype: Any) -> None:
        self.bias = self._variable("bias", (size,), dtype) if self.use_bias else None

    def _checked(self, x: Any) -> Tensor:
        x = as_input(x)
        expect_rank(x.shape, self.rank + 2, spatial_layout(self.rank, self.data_format))
        expect_size(x.shape, self._channels_axis, self.in_channels, "channels")  # type: ignore[arg-type]
        return x

    def _finish(self, y: Tensor) -> Tensor:
        """y plus the bias (one per channel), then the activation."""
        if self.bias is not None:
            bias = self.bias if self.data_format == "channels_last" else reshape(
                self.bias, (-1, *(1,) * self.rank))
            y = add(y, bias)
        return y if self.activation is None else self.activation(y)


class _Conv(_Convolution):
    """The convolution of one spatial rank (Conv1D, Conv2D, Conv3D)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 dilation_rate: Any = 1, groups: int = 1, activation: Any = None, use_bias: bool = True,
                 data_format: str = "channels_last", kernel_initializer: Any = initializers.glorot_uniform(),
                 bias_initializer: Any = initializers.zeros, in_channels: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.filters = args.positive_int(filters, self, "filters")
        super().__init__(kernel_size, strides, padding, dilation_rate, activation, use_bias, data_format,
                         in_channels)
        self.groups = args.positive_int(groups, self, "groups")
        if self.filters % self.groups:
            raise ShapeError(f"{type(self).__name__}: filters ({self.filters}) must be a multiple of groups "
                             f"({self.groups}); each group makes filters / groups of them.")
        self._fused = args.fused_name(self.activation)
        self._initializers(seed, key, bias_initializer,
                           kernel=args.initializer(kernel_initializer, self, "kernel_initializer"))

    def make_variables(self, channels: int, dtype: Any) -> None:
        """kernel (*kernel_size, channels / groups, filters) and bias (filters,)."""
        if channels % self.groups:
            raise ShapeError(f"the input's {channels} channels are not a multiple of groups ({self.groups}); "
                             f"give inputs whose channels divide into {self.groups} groups.")
        shape = (*self.kernel_size, channels // self.groups, self.filters)
        self.kernel = self._variable("kernel", shape, dtype)
        self._bias(self.filters, dtype)

    def forward(self, x: Any) -> Tensor:
        """activation(conv(x, kernel) + bias) (fused_conv)."""
        x = self._checked(x)
        y = fused_conv(x, self.kernel, self.bias, self._fused or "linear", self.strides, self.padding.upper(),
                       dilation=self.dilation_rate, groups=self.groups, data_format=self.data_format,
                       leakyrelu_alpha=args.LEAKY_RELU_SLOPE)
        return y if self._fused is not None or self.activation is None else self.activation(y)


class Conv1D(_Conv):
    """1-d convolution: (batch, length, channels) -> (batch, new_length, filters) (channels
    after the batch with ``data_format="channels_first"``); kernel (k, channels / groups,
    filters) glorot_uniform, bias zeros; padding 'valid' or 'same' (Keras's: the odd pad at
    the end). Built from the first input, or at once with ``in_channels``."""

    rank = 1


class Conv2D(_Conv):
    """2-d convolution: (batch, height, width, channels) -> (batch, new_height, new_width,
    filters) (NCHW with ``data_format="channels_first"``); kernel (kh, kw, channels / groups,
    filters) glorot_uniform, bias zeros; padding 'valid' or 'same' (Keras's: the odd pad at the
    bottom and right). Built from the first input, or at once with ``in_channels``."""

    rank = 2


class Conv3D(_Conv):
    """3-d convolution: (batch, depth, height, width, channels) -> (batch, ..., filters);
    kernel (kd, kh, kw, channels / groups, filters) glorot_uniform, bias zeros; as Conv2D
    otherwise."""

    rank = 3


class Conv2DTranspose(_Convolution):
    """The transposed 2-d convolution (``tp.nn.conv_transpose``, the gradient of Conv2D with
    respect to its input): (batch, h, w, channels) -> (batch, (h - 1) * stride + kh - pads +
    output_padding, ..., filters); 'same' gives h * stride. kernel (kh, kw, filters, channels)
    (Keras's layout) glorot_uniform, bias zeros."""

    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 output_padding: Any = 0, dilation_rate: Any = 1, activation: Any = None,
                 use_bias: bool = True,
                 data_format: str = "channels_last", kernel_initializer: Any = initializers.glorot_uniform(),
                 bias_initializer: Any = initializers.zeros, in_channels: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.filters = args.positive_int(filters, self, "filters")
        super().__init__(kernel_size, strides, padding, dilation_rate, activation, use_bias, data_format,
                         in_channels)
        self.output_padding = args.per_dim(output_padding, self.rank, self, "output_padding", minimum=0)
        if any(p >= s for p, s in zip(self.output_padding, self.strides)):
            raise ShapeError(f"Conv2DTranspose: output_padding {self.output_padding} must be smaller than "
                             f"the strides {self.strides} on every dim (it adds rows a stride could not "
                             "reach).")
        self._initializers(seed, key, bias_initializer,
                           kernel=args.initializer(kernel_initializer, self, "kernel_initializer"))

    def make_variables(self, channels: int, dtype: Any) -> None:
        """kernel (kh, kw, filters, channels) and bias (filters,)."""
        self.kernel = self._variable("kernel", (*self.kernel_size, self.filters, channels), dtype)
        self._bias(self.filters, dtype)

    def forward(self, x: Any) -> Tensor:
        """activation(conv_transpose(x, kernel) + bias)."""
        x = self._checked(x)
        y = conv_transpose(x, self.kernel, self.strides, self.padding.upper(), dilation=self.dilation_rate,
                           data_format=self.data_format, output_padding=self.output_padding)
        return self._finish(y)


class DepthwiseConv2D(_Convolution):
    """Each input channel convolved with its own `depth_multiplier` filters: (batch, h, w, C)
    -> (batch, h', w', C * depth_multiplier), channel c * depth_multiplier + m from input
    channel c (``tp.nn.depthwise_conv``); kernel (kh, kw, C, depth_multiplier)
    glorot_uniform, bias zeros."""

    rank = 2

    def __init__(self, kernel_size: Any, strides: Any = 1, padding: str = "valid", depth_multiplier: int = 1,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 data_format: str = "channels_last",
                 depthwise_initializer: Any = initializers.glorot_uniform(),
                 bias_initializer: Any = initializers.zeros, in_channels: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        super().__init__(kernel_size, strides, padding, dilation_rate, activation, use_bias, data_format,
                         in_channels)
        self.depth_multiplier = args.positive_int(depth_multiplier, self, "depth_multiplier")
        self._fused = args.fused_name(self.activation)
        self._initializers(seed, key, bias_initializer,
                           kernel=args.initializer(depthwise_initializer, self, "depthwise_initializer"))

    def make_variables(self, channels: int, dtype: Any) -> None:
        """kernel (kh, kw, channels, depth_multiplier) and bias (channels * depth_multiplier,)."""
        self.kernel = self._variable("kernel", (*self.kernel_size, channels, self.depth_multiplier), dtype)
        self._bias(channels * self.depth_multiplier, dtype)

    def forward(self, x: Any) -> Tensor:
        """activation(depthwise_conv(x, kernel) + bias) (fused_conv, one group per channel)."""
        x = self._checked(x)
        channels = self.kernel.shape[2]
        grouped = reshape(self.kernel, (*self.kernel_size, 1, channels * self.depth_multiplier))
        y = fused_conv(x, grouped, self.bias, self._fused or "linear", self.strides, self.padding.upper(),
                       dilation=self.dilation_rate, groups=channels, data_format=self.data_format,
                       leakyrelu_alpha=args.LEAKY_RELU_SLOPE)
        return y if self._fused is not None or self.activation is None else self.activation(y)


class SeparableConv2D(_Convolution):
    """A DepthwiseConv2D (depthwise_kernel (kh, kw, C, depth_multiplier)) then a 1x1
    convolution mixing the channels (pointwise_kernel (1, 1, C * depth_multiplier, filters)),
    then the bias (filters,) and the activation (``tp.nn.separable_conv``): (batch, h, w, C)
    -> (batch, h', w', filters). Kernels glorot_uniform, bias zeros."""

    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 depth_multiplier: int = 1, dilation_rate: Any = 1, activation: Any = None,
                 use_bias: bool = True, data_format: str = "channels_last",
                 depthwise_initializer: Any = initializers.glorot_uniform(),
                 pointwise_initializer: Any = initializers.glorot_uniform(),
                 bias_initializer: Any = initializers.zeros, in_channels: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.filters = args.positive_int(filters, self, "filters")
        super().__init__(kernel_size, strides, padding, dilation_rate, activation, use_bias, data_format,
                         in_channels)
        self.depth_multiplier = args.positive_int(depth_multiplier, self, "depth_multiplier")
        self._initializers(
            seed, key, bias_initializer,
            depthwise_kernel=args.initializer(depthwise_initializer, self, "depthwise_initializer"),
            pointwise_kernel=args.initializer(pointwise_initializer, self, "pointwise_initializer"))

    def make_variables(self, channels: int, dtype: Any) -> None:
        """depthwise_kernel, pointwise_kernel and bias (filters,)."""
        middle = channels * self.depth_multiplier
        self.depthwise_kernel = self._variable("depthwise_kernel",
                                               (*self.kernel_size, channels, self.depth_multiplier), dtype)
        self.pointwise_kernel = self._variable("pointwise_kernel", (1, 1, middle, self.filters), dtype)
        self._bias(self.filters, dtype)

    def forward(self, x: Any) -> Tensor:
        """activation(separable_conv(x, depthwise_kernel, pointwise_kernel) + bias)."""
        x = self._checked(x)
        y = separable_conv(x, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                           self.padding.upper(), dilation=self.dilation_rate, data_format=self.data_format)
        return self._finish(y)
