"""The cases the kit checks a gradient on: small, non-empty, with float inputs (and outputs) of
one dtype, one per distinct combination of input shapes first (finite differences cost two
kernel calls per input element)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, is_floating_numpy
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import Case

__all__ = ["MAX_ELEMENTS", "MAX_GRADIENT_CASES", "gradient_cases"]

MAX_GRADIENT_CASES = 4
MAX_ELEMENTS = 40  # finite differences cost two kernel calls per input element


def _eligible(spec: KernelSpec, case: Case, dtype: DType) -> bool:
    floats = [a for a in case.inputs if is_floating_numpy(a.dtype)]
    if case.label or not floats or any(a.dtype != dtype.numpy or a.size == 0 for a in floats):
        return False
    if sum(a.size for a in floats) > MAX_ELEMENTS:
        return False
    try:
        outputs = spec.check(case.infos(), spec.normalize_attrs(case.attrs))
    except (ShapeError, DTypeError):
        return False
    return all(o.dtype is dtype for o in outputs)


def gradient_cases(spec: KernelSpec, cases: Sequence[Case], dtype: DType,
                   limit: int = MAX_GRADIENT_CASES) -> list[Case]:
    """Up to `limit` cases with float inputs of `dtype` (and outputs of it), small and
    non-empty: one per distinct combination of input shapes first, spread over the list."""
    eligible = [c for c in cases if _eligible(spec, c, dtype)]
    seen: dict[Any, Case] = {}
    for c in eligible:
        seen.setdefault(tuple(a.shape for a in c.inputs), c)
    pool = list(seen.values()) if len(seen) >= limit else eligible
    if len(pool) <= limit:
        return pool
    return [pool[int(i)] for i in np.linspace(0, len(pool) - 1, limit).round()]


