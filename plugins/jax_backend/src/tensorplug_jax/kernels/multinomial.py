"""Multinomial: ``jax.random.categorical`` over each row of the logits (the log of the
probabilities when ``normalized``), keyed by the seed as the random creation kernels are."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tensorplug_jax.kernels._jit import with_attrs
from tensorplug_jax.kernels.creation import _key, _random


def _multinomial(logits: Any, num_samples: int, normalized: bool, negative: bool, seed: Any) -> Any:
    logits = logits.astype(jnp.promote_types(logits.dtype, jnp.float32))
    if normalized:
        logits = jnp.log(logits)
    out = jax.random.categorical(_key(seed, negative), logits, axis=-1, shape=(num_samples, logits.shape[0]))
    return out.T.astype(jnp.int64)


KERNELS: dict[str, Callable[..., Any]] = {
    "Multinomial": _random(with_attrs(_multinomial, static=("num_samples", "normalized", "negative"),
                                      traced=("seed",))),
}
