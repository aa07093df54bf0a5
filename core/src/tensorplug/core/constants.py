"""The Array API standard's constants, as Python values (weak scalars in ops)."""

from __future__ import annotations

import math

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

e: float = math.e
inf: float = math.inf
nan: float = math.nan
pi: float = math.pi
newaxis: None = None  # x[:, tp.newaxis] adds an axis of size 1
