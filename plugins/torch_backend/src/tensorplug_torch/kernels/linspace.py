"""LinSpace: numpy's linspace algorithm with torch, in double precision (complex128 for complex
dtypes), rounded once to the output dtype; start and stop (with endpoint) exactly at the ends,
so the values are the numpy backend's bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug_torch.backend import torch_dtype


def linspace(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    dtype = attrs["dtype"]
    start, stop, num = attrs["start"], attrs["stop"], attrs["num"]
    wide = torch.complex128 if dtype.is_complex else torch.float64
    div = num - 1 if attrs["endpoint"] else num
    values = torch.arange(num, dtype=torch.float64, device=backend.device).to(wide)
    delta = stop - start
    if div > 0:
        step = delta / div
        values = values / div * delta if step == 0 else values * step
    else:
        values = values * delta
    values = values + start
    if num:  # (numpy's first value is 0 * step + start: NaN for an infinite step)
        values[0] = start
        if attrs["endpoint"] and num > 1:
            values[-1] = stop
    return values.to(torch_dtype(dtype, "LinSpace"))


KERNELS: dict[str, Callable[..., Any]] = {"LinSpace": linspace}
