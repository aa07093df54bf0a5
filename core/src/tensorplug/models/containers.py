"""Modules that hold other modules: ``Sequential`` (each layer's output is the next one's
input) and ``Lambda`` (a function as a layer)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tensorplug.errors import ArgumentError
from tensorplug.models.module import Module

__all__ = ["Sequential", "Lambda"]


class Sequential(Module):
    """Layers applied in order: ``Sequential([Dense(128, activation="relu"), Dense(10)])``.
    Its variables are named ``layers.<i>.<name>``."""

    def __init__(self, layers: Iterable[Module] = ()) -> None:
        if not isinstance(layers, (list, tuple)) and not isinstance(layers, Iterator):
            raise ArgumentError(f"Sequential: layers must be a list of modules, got {type(layers).__name__}; "
                                "e.g. Sequential([Dense(64, activation='relu'), Dense(10)]).")
        self.layers: list[Module] = []
        for layer in layers:
            self.add(layer)

    def add(self, layer: Module) -> Sequential:
        """Append `layer` (a module; wrap a function in ``Lambda``); returns self."""
        if not isinstance(layer, Module):
            hint = " Wrap a function in tp.nn.Lambda(fn)." if callable(layer) else ""
            raise ArgumentError(f"Sequential: layer {len(self.layers)} is a {type(layer).__name__}, not a "
                                f"tp.nn.Module.{hint}")
        self.layers.append(layer)
        return self

    def forward(self, x: Any) -> Any:
        """Each layer on the previous one's output, the first on `x`."""
        for layer in self.layers:
            x = layer(x)
        return x

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Module]:
        return iter(self.layers)

    def __getitem__(self, index: int) -> Module:
        return self.layers[index]


class Lambda(Module):
    """A function of one input as a layer (``Lambda(tp.nn.relu)``); it holds no variables."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        if not callable(fn):
            raise ArgumentError(f"Lambda: fn must be callable, got {type(fn).__name__}.")
        self.fn = fn

    def forward(self, x: Any) -> Any:
        """``fn(x)``."""
        return self.fn(x)
