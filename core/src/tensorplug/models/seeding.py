"""The seeds of layers' initial values: a layer built without ``seed=`` takes the next seed of
one process-wide sequence, which starts the same in every run (so a model's first values are
reproducible) and restarts with ``tp.nn.set_seed``."""

from __future__ import annotations

import itertools

from tensorplug.core import validate as valid

__all__ = ["next_seed", "set_seed"]

_MULTIPLIER = 1_000_003  # (set_seed(1) and set_seed(2) start far apart)
_seeds = itertools.count()


def set_seed(seed: int) -> None:
    """Restart the sequence of seeds the layers draw their initial values from (layers given
    ``seed=`` use theirs)."""
    global _seeds
    _seeds = itertools.count(valid.integer(seed, "set_seed", "seed") * _MULTIPLIER)


def next_seed() -> int:
    """The next seed of the sequence (a layer's, when it was given none)."""
    return next(_seeds) % (2**31)
