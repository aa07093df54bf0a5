"""The layers' shared argument checks, run at construction: each takes the value, the layer
(its class names it in the message) and the argument's name, and returns the normalized value
or raises an ``ArgumentError`` (a value of the wrong kind) or a ``ShapeError`` (a value out of
range, an unknown name: with a "did you mean") naming the layer, the argument and the fix.

``activation(name_or_callable, layer)`` resolves every activation of ``tp.nn`` by its name
(and ``tp.tanh``; ``"linear"`` and None are no activation)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.errors import ArgumentError, ShapeError
from tensorplug.families.activations import ops as activation_ops
from tensorplug.families.creation.keys import key_parts
from tensorplug.families.elementwise.ops import tanh
from tensorplug.families.nn.ops import log_softmax, relu, sigmoid, softmax
from tensorplug.models.seeding import next_seed

__all__ = ["ACTIVATIONS", "DATA_FORMATS", "FUSED_ACTIVATIONS", "LEAKY_RELU_SLOPE", "PADDINGS",
           "NamedActivation", "activation", "axes", "data_format", "epsilon", "flag", "fused_name",
           "initializer", "layer_name", "padding", "per_dim", "positive_int", "rate", "seed", "seed_or_key"]

Activation = Callable[[Tensor], Tensor]

#: the activations a layer takes by name: every one-input activation of tp.nn (prelu takes
#: weights: use tp.nn.prelu in a Lambda), tp.tanh, and "linear" (none)
ACTIVATIONS: dict[str, Activation | None] = {
    **{name: getattr(activation_ops, name) for name in activation_ops.__all__ if name != "prelu"},
    "relu": relu, "sigmoid": sigmoid, "softmax": softmax, "log_softmax": log_softmax, "tanh": tanh,
    "linear": None,
}
PADDINGS = ("valid", "same")
DATA_FORMATS = ("channels_last", "channels_first")


def layer_name(layer: Any) -> str:
    """How a message names `layer`: its class's name (or `layer` itself when it is a str)."""
    return layer if isinstance(layer, str) else type(layer).__name__


def _did_you_mean(value: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(value.lower(), choices, n=1)
    return f" Did you mean {close[0]!r}?" if close else ""


def _name(value: Any, choices: Sequence[str], layer: Any, arg: str) -> str:
    """`value`, a str naming one of `choices` (any case)."""
    name = layer_name(layer)
    if not isinstance(value, str):
        raise ArgumentError(f"{name}: {arg} must be a str, one of {', '.join(map(repr, choices))}; got "
                            f"{valid.shown(value)}.")
    if value.lower() not in choices:
        raise ShapeError(f"{name}: {arg} {value!r} is not one of {', '.join(map(repr, choices))}."
                         f"{_did_you_mean(value, choices)}")
    return value.lower()


def positive_int(value: Any, layer: Any, arg: str) -> int:
    """An int >= 1 (a size: units, filters, a multiplier)."""
    name = layer_name(layer)
    number = valid.integer(value, name, arg)
    if number < 1:
        raise ShapeError(f"{name}: {arg} must be a positive int, got {number}; pass a size >= 1.")
    return number


def per_dim(value: Any, rank: int, layer: Any, arg: str, minimum: int = 1) -> tuple[int, ...]:
    """One int per spatial dim (each >= `minimum`) from one int (the same on every dim) or
    `rank` ints: ``kernel_size=3`` -> ``(3, 3)`` for a 2-d layer."""
    name = layer_name(layer)
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,) * rank
    if len(values) != rank:
        raise ShapeError(f"{name}: {arg} {tuple(value)} has {len(values)} entries for {rank} spatial dim(s); "
                         f"give one int, or {rank}.")
    out = tuple(valid.integer(v, name, arg) for v in values)
    if any(v < minimum for v in out):
        raise ShapeError(f"{name}: {arg} must be >= {minimum} on every spatial dim, got "
                         f"{value if isinstance(value, int) else out}; pass e.g. {arg}={max(minimum, 1)}.")
    return out


def padding(value: Any, layer: Any) -> str:
    """'valid' or 'same' (any case, as Keras)."""
    return _name(value, PADDINGS, layer, "padding")


def data_format(value: Any, layer: Any) -> str:
    """'channels_last' (NHWC: the default) or 'channels_first' (NCHW)."""
    return _name(value, DATA_FORMATS, layer, "data_format")


class NamedActivation:
    """An activation given by name: called as its function, shown and compared by its name (a
    layer's repr reads ``activation='relu'``; two layers of one configuration are equal)."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Activation) -> None:
        self.name, self.fn = name, fn

    def __call__(self, x: Any) -> Tensor:
        return self.fn(x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedActivation) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return repr(self.name)


#: the activations fused_matmul and fused_conv apply in their kernel, by the layers' names
FUSED_ACTIVATIONS = {"relu": "relu", "relu6": "relu6", "elu": "elu", "sigmoid": "sigmoid",
                     "leaky_relu": "leakyrelu"}
LEAKY_RELU_SLOPE = 0.01  # tp.nn.leaky_relu's default, what activation="leaky_relu" means


def fused_name(activation: Any) -> str | None:
    """The fused kernels' name of a layer's activation (None, or a NamedActivation), or None
    when they do not have it (then the layer applies it after)."""
    if activation is None:
        return "linear"
    return FUSED_ACTIVATIONS.get(activation.name) if isinstance(activation, NamedActivation) else None


def activation(value: Any, layer: Any) -> Callable[[Any], Any] | None:
    """The function an activation argument names: a callable as given, a name of ``ACTIVATIONS``
    (any case; a ``NamedActivation``), or None for None and "linear" (no activation)."""
    if value is None or callable(value):
        return value
    name = layer_name(layer)
    if not isinstance(value, str):
        raise ArgumentError(f"{name}: activation must be a name such as 'relu', a function of one tensor, "
                            f"or None; got {valid.shown(value)}.")
    key = value.lower()
    if key not in ACTIVATIONS:
        raise ShapeError(f"{name}: activation {value!r} is unknown; pass one of "
                         f"{', '.join(map(repr, sorted(ACTIVATIONS)))}, or a function."
                         f"{_did_you_mean(value, list(ACTIVATIONS))}")
    fn = ACTIVATIONS[key]
    return None if fn is None else NamedActivation(key, fn)


def rate(value: Any, layer: Any, arg: str = "rate") -> float:
    """A probability in [0, 1) (a dropout rate)."""
    name = layer_name(layer)
    r = float(valid.number(value, name, arg))
    if not 0.0 <= r < 1.0:
        raise ShapeError(f"{name}: {arg} must be in [0, 1) (the probability of dropping an element), got "
                         f"{r}; e.g. {arg}=0.1, or 0.0 for no dropout.")
    return r


def flag(value: Any, layer: Any, arg: str) -> bool:
    """True or False."""
    return valid.flag(value, layer_name(layer), arg)


def initializer(value: Any, layer: Any, arg: str) -> Callable[..., Tensor]:
    """An initializer: a function called as ``init(shape, dtype, seed=...)``, or with ``key=``
    when the layer was given a key (``tp.nn.initializers``)."""
    if not callable(value):
        raise ArgumentError(f"{layer_name(layer)}: {arg} must be an initializer such as "
                            f"tp.nn.initializers.glorot_uniform(), got {valid.shown(value)}.")
    return value


def seed(value: Any, layer: Any) -> int:
    """The layer's seed: an int as given, or the next of ``tp.nn.set_seed``'s sequence for None."""
    return next_seed() if value is None else valid.integer(value, layer_name(layer), "seed")


def seed_or_key(value: Any, key: Any, layer: Any) -> int | Tensor:
    """Where the layer's first values come from: its key (a ``tp.random.key``, checked) when
    given, else its seed (``seed(value, layer)``); an ArgumentError for both."""
    if key is None:
        return seed(value, layer)
    if value is not None:
        raise ArgumentError(f"{layer_name(layer)}: got both seed={valid.shown(value)} and key=; pass one "
                            f"of them (key=tp.random.key(0) or seed=0).")
    key_parts(key, layer_name(layer))
    return key


def epsilon(value: Any, layer: Any) -> float:
    """A finite float > 0 (what keeps a normalization's divisor away from 0)."""
    name = layer_name(layer)
    eps = float(valid.number(value, name, "epsilon"))
    if not 0 < eps < math.inf:
        raise ShapeError(f"{name}: epsilon must be a finite number > 0, got {eps}; the default is fine "
                         "in most cases (e.g. 1e-3).")
    return eps


def axes(value: Any, layer: Any, arg: str = "axis") -> int | tuple[int, ...]:
    """An axis (an int) or a non-empty tuple of distinct ints (lists become tuples, so the
    layer's configuration stays comparable)."""
    name = layer_name(layer)
    if isinstance(value, (list, tuple)):
        if not value:
            raise ArgumentError(f"{name}: {arg} must name at least one axis, got {value!r}.")
        out = tuple(valid.integer(a, name, arg) for a in value)
        if len(set(out)) != len(out):
            raise ShapeError(f"{name}: {arg} {out} names an axis twice.")
        return out
    return valid.integer(value, name, arg)
