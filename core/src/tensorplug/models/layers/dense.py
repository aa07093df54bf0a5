"""``Dense``: the fully connected layer."""

from __future__ import annotations

from typing import Any

from tensorplug.core.tensor import Tensor
from tensorplug.errors import ShapeError
from tensorplug.families.elementwise.ops import add
from tensorplug.families.linalg.ops import matmul
from tensorplug.models import initializers
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.inputs import Initial, as_input, expect_size
from tensorplug.models.module import Module

__all__ = ["Dense"]

class Dense(Module):
    """``activation(x @ kernel + bias)`` over the last axis of x: (..., in_features) ->
    (..., units), for inputs of any rank >= 1. kernel (in_features, units) starts
    glorot_uniform, bias (units,) zeros (Keras's defaults). Built from the first input, or at
    once with ``in_features``. The initial values come from `seed` or `key` (one of them; the
    next seed of ``tp.nn.set_seed``'s sequence by default)."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = initializers.glorot_uniform(),
                 bias_initializer: Any = initializers.zeros, in_features: int | None = None,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.units = args.positive_int(units, self, "units")
        self.activation = args.activation(activation, self)
        self.use_bias = args.flag(use_bias, self, "use_bias")
        self.in_features = (None if in_features is None else
                            args.positive_int(in_features, self, "in_features"))
        self._initial = Initial(args.seed_or_key(seed, key, self),
                                kernel=args.initializer(kernel_initializer, self, "kernel_initializer"),
                                bias=args.initializer(bias_initializer, self, "bias_initializer"))
        self.built = False
        if self.in_features is not None:
            self.build((None, self.in_features))
            self.built = True

    def build(self, input_shape: tuple[int | None, ...], dtype: Any = None) -> None:
        """Make kernel (in_features, units) and bias (units,) for inputs of `input_shape`."""
        initial = Initial.of(self)
        if len(input_shape) < 1 or input_shape[-1] is None:
            raise ShapeError(f"expected inputs of at least 1 dim with a known last axis (the features), "
                             f"got shape {tuple(input_shape)}.")
        self.in_features = int(input_shape[-1])
        self.kernel = initial.variable("kernel", (self.in_features, self.units), dtype)
        self.bias = initial.variable("bias", (self.units,), dtype) if self.use_bias else None
        del self._initial

    def forward(self, x: Any) -> Tensor:
        """activation(x @ kernel + bias): three kernels (MatMul, Add, the activation's); one
        FusedMatMul measured slower eagerly on small inputs and the same under tp.jit."""
        x = as_input(x)
        if x.ndim < 1:
            raise ShapeError(f"expected inputs of at least 1 dim (..., {self.in_features}), got a scalar.")
        expect_size(x.shape, -1, self.kernel.shape[0], "features")
        y = matmul(x, self.kernel)
        if self.bias is not None:
            y = add(y, self.bias)
        return y if self.activation is None else self.activation(y)
