"""``tp.random``: random tensors from explicit integer seeds (``tp.random.normal((2, 3), seed=0)``)."""

from __future__ import annotations

from tensorplug.families.creation.random import normal, uniform
from tensorplug.families.multinomial.ops import categorical

__all__ = ["normal", "uniform"]
__all__ += ["categorical"]
