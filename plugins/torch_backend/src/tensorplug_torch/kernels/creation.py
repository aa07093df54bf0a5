"""Creation kernels: Fill, Range, Eye, RandomUniform, RandomNormal (seeded torch Generators), on
the backend's default device.

Every kernel builds its values in the dtype of ``attrs["dtype"]``. The random kernels draw with
a ``torch.Generator`` seeded by ``attrs["seed"]``, so the same seed gives the same values on
every call (torch's stream, not numpy's: streams differ between backends).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import range_dtype, range_length
from tensorplug_torch.backend import torch_dtype

_DRAWN = (torch.float32, torch.float64)  # what the samplers draw in; half floats in float32


def fill(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    dtype = torch_dtype(attrs["dtype"], "Fill")
    return torch.full(attrs["shape"], attrs["value"], dtype=dtype, device=backend.device)


def range_(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    """start + step * i for i < ceil((stop - start) / step): the spec's length exactly, computed
    in int64 for integer arguments, else in float64, then cast once (as the numpy backend)."""
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    n = range_length(start, stop, step)
    wide = torch.int64 if range_dtype(start, stop, step).kind == "i" else torch.float64
    steps = torch.arange(n, dtype=wide, device=backend.device)
    if step != 1:
        steps *= step
    if start != 0:
        steps += start
    return steps.to(torch_dtype(attrs["dtype"], "Range"))


def eye(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    rows, cols, k = attrs["n_rows"], attrs["n_cols"], attrs["k"]
    dtype = torch_dtype(attrs["dtype"], "Eye")
    if k == 0:
        return torch.eye(rows, cols, dtype=dtype, device=backend.device)
    device = backend.device
    offset = torch.arange(cols, device=device)[None, :] - torch.arange(rows, device=device)[:, None]
    return (offset == k).to(dtype)


def _generator(seed: int, device: torch.device) -> torch.Generator:
    # torch takes seeds in [-2**63, 2**64); a negative one is a seed of its own
    return torch.Generator(device).manual_seed(seed % 2**64)


def random_uniform(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    """Samples in [low, high), kept below `high` where rounding low + (high - low) * u in the
    target dtype would reach it."""
    dtype = torch_dtype(attrs["dtype"], "RandomUniform")
    low, high = attrs["low"], attrs["high"]
    drawn = dtype if dtype in _DRAWN else torch.float32
    u = torch.rand(attrs["shape"], generator=_generator(attrs["seed"], backend.device), dtype=drawn,
                   device=backend.device)
    out = (low + (high - low) * u).to(dtype)
    if high > low:
        top = torch.nextafter(torch.tensor(high, dtype=dtype), torch.tensor(low, dtype=dtype))
        out = torch.minimum(out, top.to(backend.device))
    return out


def random_normal(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> torch.Tensor:
    dtype = torch_dtype(attrs["dtype"], "RandomNormal")
    drawn = dtype if dtype in _DRAWN else torch.float32
    z = torch.randn(attrs["shape"], generator=_generator(attrs["seed"], backend.device), dtype=drawn,
                    device=backend.device)
    return (z * attrs["stddev"] + attrs["mean"]).to(dtype)


KERNELS: dict[str, Callable[..., Any]] = {
    "Fill": fill,
    "Range": range_,
    "Eye": eye,
    "RandomUniform": random_uniform,
    "RandomNormal": random_normal,
}
