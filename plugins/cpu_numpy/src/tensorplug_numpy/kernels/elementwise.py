"""Elementwise kernels, from one table of numpy functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _unary(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        return fn(inputs[0])
    return kernel


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
        x, y = inputs
        return fn(x, y)
    return kernel


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # stable for large |x|: exp of a non-positive number only
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


KERNELS: dict[str, Callable[..., Any]] = {
    "Negative": _unary(np.negative),
    "Abs": _unary(np.abs),
    "Sign": _unary(np.sign),
    "Square": _unary(np.square),
    "Floor": _unary(np.floor),
    "Ceil": _unary(np.ceil),
    "Round": _unary(np.round),
    "Exp": _unary(np.exp),
    "Log": _unary(np.log),
    "Log1p": _unary(np.log1p),
    "Expm1": _unary(np.expm1),
    "Sqrt": _unary(np.sqrt),
    "Sin": _unary(np.sin),
    "Cos": _unary(np.cos),
    "Tanh": _unary(np.tanh),
    "Sigmoid": _unary(_sigmoid),
    "Relu": _unary(lambda x: np.maximum(x, 0).astype(x.dtype, copy=False)),
    "LogicalNot": _unary(np.logical_not),
    "Add": _binary(np.add),
    "Subtract": _binary(np.subtract),
    "Multiply": _binary(np.multiply),
    "Divide": _binary(np.divide),
    "FloorDivide": _binary(np.floor_divide),
    "Pow": _binary(np.power),
    "Maximum": _binary(np.maximum),
    "Minimum": _binary(np.minimum),
    "Equal": _binary(np.equal),
    "NotEqual": _binary(np.not_equal),
    "Less": _binary(np.less),
    "LessEqual": _binary(np.less_equal),
    "Greater": _binary(np.greater),
    "GreaterEqual": _binary(np.greater_equal),
    "LogicalAnd": _binary(np.logical_and),
    "LogicalOr": _binary(np.logical_or),
    "Where": lambda inputs, attrs, backend: np.where(*inputs),
    "Cast": lambda inputs, attrs, backend: np.asarray(inputs[0]).astype(attrs["dtype"].numpy),
    "Clip": lambda inputs, attrs, backend: np.clip(inputs[0], attrs["min"], attrs["max"]).astype(
        inputs[0].dtype, copy=False),
}
