"""``tp.random``: random tensors from explicit integer seeds (``tp.random.normal((2, 3), seed=0)``)."""

from __future__ import annotations

from tensorplug.ops.categorical import categorical
from tensorplug.ops.random import normal, uniform

__all__ = ["normal", "uniform"]
__all__ += ["categorical"]
