"""Layout kernels (TF.js's spatial and batch rearrangements): MirrorPad, SpaceToBatchND,
BatchToSpaceND, DepthToSpace, SpaceToDepth. The rearrangements are ``tensorplug.kernel_helpers``'
plans run with torch (``_namespace``); results may be views of x (safe: native arrays are
never written after creation). MirrorPad reads each axis through an index of mirrored
positions (torch's reflect pad takes only the last dims of float tensors, and has no
'symmetric')."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from tensorplug.kernel_helpers import batch_to_space, depth_to_space, space_to_batch, space_to_depth
from tensorplug_torch.kernels._namespace import namespace


def _mirrored(size: int, lo: int, hi: int, mode: str) -> list[int]:
    """The positions of an axis of `size` padded by (lo, hi) with its mirror image: 'reflect'
    leaves the edge out, 'symmetric' repeats it (the spec keeps the pads within one mirror)."""
    edge = 0 if mode == "reflect" else 1
    out = []
    for i in range(-lo, size + hi):
        if i < 0:
            i = -i - edge
        elif i >= size:
            i = 2 * size - i - 2 + edge
        out.append(i)
    return out


def mirror_pad(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    if not x.ndim:
        return x.clone()
    for axis, (lo, hi) in enumerate(attrs["paddings"]):
        if lo or hi:
            at = torch.tensor(_mirrored(x.shape[axis], lo, hi, attrs["mode"]), device=x.device)
            x = torch.index_select(x, axis, at)
    return x


def space_to_batch_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return space_to_batch(namespace(x.device), x, attrs["block_shape"], attrs["paddings"])


def batch_to_space_nd(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return batch_to_space(namespace(x.device), x, attrs["block_shape"], attrs["crops"])


def depth_to_space_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return depth_to_space(namespace(x.device), x, attrs["block_size"], attrs["data_format"])


def space_to_depth_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    x = inputs[0]
    return space_to_depth(namespace(x.device), x, attrs["block_size"], attrs["data_format"])


KERNELS: dict[str, Callable[..., Any]] = {
    "MirrorPad": mirror_pad,
    "SpaceToBatchND": space_to_batch_nd,
    "BatchToSpaceND": batch_to_space_nd,
    "DepthToSpace": depth_to_space_kernel,
    "SpaceToDepth": space_to_depth_kernel,
}
