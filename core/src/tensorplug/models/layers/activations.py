"""The activation layers: ``ReLU``, ``GELU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LeakyReLU``,
``ELU``, ``SiLU`` and ``Activation(name_or_callable)``: each applies one ``tp.nn`` activation
elementwise (Softmax along an axis) and holds no variable."""

from __future__ import annotations

from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families.activations.ops import elu, gelu, leaky_relu, silu
from tensorplug.families.elementwise.ops import tanh
from tensorplug.families.nn.ops import relu, sigmoid, softmax
from tensorplug.models.layers import arguments as args
from tensorplug.models.module import Module

__all__ = ["Activation", "ELU", "GELU", "LeakyReLU", "ReLU", "SiLU", "Sigmoid", "Softmax", "Tanh"]


class Activation(Module):
    """Applies an activation given by name (any of ``tp.nn``'s: "relu", "gelu", "tanh",
    "softmax", ...; "linear" for none) or as a function of one tensor."""

    def __init__(self, activation: Any) -> None:
        if activation is None:
            raise ArgumentError("Activation: activation must be a name such as 'relu' or a function; "
                                "pass 'linear' for none.")
        self.activation = args.activation(activation, self)

    def forward(self, x: Any) -> Tensor:
        """The activation of x (x itself for 'linear')."""
        return x if self.activation is None else self.activation(x)


class ReLU(Module):
    """max(x, 0) (``tp.nn.relu``)."""

    def forward(self, x: Any) -> Tensor:
        """relu(x)."""
        return relu(x)


class GELU(Module):
    """x * Phi(x) (``tp.nn.gelu``): with ``approximate=True`` (the default, as tp.nn.gelu and
    JAX) the tanh form, else the exact one (torch's default)."""

    def __init__(self, approximate: bool = True) -> None:
        self.approximate = args.flag(approximate, self, "approximate")

    def forward(self, x: Any) -> Tensor:
        """gelu(x)."""
        return gelu(x, approximate=self.approximate)


class Sigmoid(Module):
    """1 / (1 + exp(-x)) (``tp.nn.sigmoid``)."""

    def forward(self, x: Any) -> Tensor:
        """sigmoid(x)."""
        return sigmoid(x)


class Tanh(Module):
    """tanh(x) (``tp.tanh``)."""

    def forward(self, x: Any) -> Tensor:
        """tanh(x)."""
        return tanh(x)


class Softmax(Module):
    """exp(x) / sum(exp(x)) along `axis` (default the last; ``tp.nn.softmax``)."""

    def __init__(self, axis: int = -1) -> None:
        self.axis = valid.integer(axis, "Softmax", "axis")

    def forward(self, x: Any) -> Tensor:
        """softmax(x) along the axis."""
        return softmax(x, axis=self.axis)


class LeakyReLU(Module):
    """x for x >= 0, negative_slope * x below (``tp.nn.leaky_relu``; its default slope 0.01, as
    torch and JAX, and as ``activation="leaky_relu"``; Keras's layer defaults to 0.3)."""

    def __init__(self, negative_slope: float = 0.01) -> None:
        slope = float(valid.number(negative_slope, "LeakyReLU", "negative_slope"))
        if not slope >= 0:
            raise ShapeError(f"LeakyReLU: negative_slope must be >= 0, got {negative_slope!r}.")
        self.negative_slope = slope

    def forward(self, x: Any) -> Tensor:
        """leaky_relu(x) with the slope."""
        return leaky_relu(x, self.negative_slope)


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) below (``tp.nn.elu``)."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = float(valid.number(alpha, "ELU", "alpha"))

    def forward(self, x: Any) -> Tensor:
        """elu(x) with alpha."""
        return elu(x, self.alpha)


class SiLU(Module):
    """x * sigmoid(x), a.k.a. swish (``tp.nn.silu``)."""

    def forward(self, x: Any) -> Tensor:
        """silu(x)."""
        return silu(x)
