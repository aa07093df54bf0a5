"""Creation kernels: Fill, Range, Eye, RandomUniform, RandomNormal (seeded numpy Generators)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def fill(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    return np.full(attrs["shape"], attrs["value"], dtype=attrs["dtype"].numpy)


def range_(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    return np.arange(attrs["start"], attrs["stop"], attrs["step"], dtype=attrs["dtype"].numpy)


def eye(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    return np.eye(attrs["n_rows"], attrs["n_cols"], k=attrs["k"], dtype=attrs["dtype"].numpy)


def random_uniform(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    rng = np.random.default_rng(attrs["seed"])
    return rng.uniform(attrs["low"], attrs["high"], attrs["shape"]).astype(attrs["dtype"].numpy)


def random_normal(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    rng = np.random.default_rng(attrs["seed"])
    return rng.normal(attrs["mean"], attrs["stddev"], attrs["shape"]).astype(attrs["dtype"].numpy)


KERNELS: dict[str, Callable[..., Any]] = {
    "Fill": fill,
    "Range": range_,
    "Eye": eye,
    "RandomUniform": random_uniform,
    "RandomNormal": random_normal,
}
