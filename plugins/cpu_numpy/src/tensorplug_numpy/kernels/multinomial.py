"""Multinomial: class indices drawn per row by inverting the row's cumulative probabilities
(one ``searchsorted`` over all rows, each row offset by its index), from a seeded Generator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug_numpy.kernels.creation import _generator


def multinomial(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    logits = np.asarray(inputs[0], dtype=np.float64)
    batch, classes = logits.shape
    if attrs["normalized"]:
        p = logits
    else:
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    with np.errstate(invalid="ignore"):
        cdf /= cdf[:, -1:]
    cdf[np.isnan(cdf)] = 1.0  # (a row of zeros draws class 0, as jax and torch; the rows stay sorted)
    offset = np.arange(batch, dtype=np.float64)[:, None]
    u = _generator(attrs["seed"]).random((batch, attrs["num_samples"]))
    found = np.searchsorted((cdf + offset).ravel(), (u + offset).ravel(), side="right")
    found = found.reshape(u.shape) - np.arange(batch)[:, None] * classes
    return np.minimum(found, classes - 1).astype(np.int64)


KERNELS: dict[str, Callable[..., Any]] = {"Multinomial": multinomial}
