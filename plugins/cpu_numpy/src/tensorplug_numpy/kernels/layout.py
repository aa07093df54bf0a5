"""Layout kernels (TF.js's spatial and batch rearrangements): MirrorPad, SpaceToBatchND,
BatchToSpaceND, DepthToSpace, SpaceToDepth. The rearrangements are
``tensorplug.kernel_helpers``' plans run with numpy; results may be views of x (safe: native
arrays are never written after creation).
They move data and compute nothing: no floating-point warning can arise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorplug.kernel_helpers import batch_to_space, depth_to_space, space_to_batch, space_to_depth
from tensorplug_numpy.kernels._kernel import Kernel


def mirror_pad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if not x.ndim:
        return x.copy()
    return np.pad(x, attrs["paddings"], mode=attrs["mode"])


def space_to_batch_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return space_to_batch(np, inputs[0], attrs["block_shape"], attrs["paddings"])


def batch_to_space_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return batch_to_space(np, inputs[0], attrs["block_shape"], attrs["crops"])


def depth_to_space_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return depth_to_space(np, inputs[0], attrs["block_size"], attrs["data_format"])


def space_to_depth_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    return space_to_depth(np, inputs[0], attrs["block_size"], attrs["data_format"])


def moving(kernel: Callable[..., Any]) -> Kernel:
    """A kernel that moves data and computes nothing: no floating-point warning can arise."""
    return Kernel(kernel, handles_warnings=True)


KERNELS: dict[str, Kernel | Callable[..., Any]] = {
    "MirrorPad": moving(mirror_pad),
    "SpaceToBatchND": moving(space_to_batch_nd),
    "BatchToSpaceND": moving(batch_to_space_nd),
    "DepthToSpace": moving(depth_to_space_kernel),
    "SpaceToDepth": moving(space_to_depth_kernel),
}
