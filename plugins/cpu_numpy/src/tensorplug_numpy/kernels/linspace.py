"""LinSpace: ``np.linspace`` in double precision (complex128 for complex dtypes), rounded once
to the output dtype; start and stop (with endpoint) exactly at the ends (numpy writes the stop
there; the start is written here too, as the JAX backend does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def linspace(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dtype = attrs["dtype"]
    wide = np.complex128 if dtype.is_complex else np.float64
    values = np.linspace(attrs["start"], attrs["stop"], attrs["num"], endpoint=attrs["endpoint"], dtype=wide)
    if values.size:  # (numpy's first value is 0 * step + start: NaN for an infinite step)
        values[0] = attrs["start"]
    return values.astype(dtype.numpy)


KERNELS: dict[str, Callable[..., Any]] = {"LinSpace": linspace}  # (run with the warnings off)
