"""The Einsum kernel: ``np.einsum`` with ``optimize=True`` (the contraction order numpy finds
best), in the operands' dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._kernel import Kernel


def einsum(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return np.asarray(np.einsum(attrs["equation"], *inputs, optimize=True), dtype=inputs[0].dtype)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {"Einsum": einsum}
