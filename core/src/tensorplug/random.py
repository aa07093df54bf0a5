"""``tp.random``: random tensors from explicit integer seeds (``tp.random.normal((2, 3), seed=0)``)
or from keys, as ``jax.random`` (``tp.random.normal(tp.random.key(0), (2, 3))``: the same numbers
on every backend, and JAX's)."""

from __future__ import annotations

from tensorplug.families.creation.key_choices import choice, permutation, randint
from tensorplug.families.creation.key_gamma import beta, gamma, loggamma
from tensorplug.families.creation.key_samplers import bernoulli, exponential, gumbel, truncated_normal
from tensorplug.families.creation.keys import bits, fold_in, key, split
from tensorplug.families.creation.random import normal, uniform
from tensorplug.families.multinomial.ops import categorical

__all__ = ["normal", "uniform"]
__all__ += ["categorical"]
__all__ += ["key", "split", "fold_in", "bits", "bernoulli", "exponential", "gumbel", "truncated_normal",
            "randint", "permutation", "choice", "gamma", "loggamma", "beta"]
