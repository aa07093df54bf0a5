"""Default gradients of the layout kernels: SpaceToBatchND and BatchToSpaceND are each other's
gradient (paddings and crops trade places), as are DepthToSpace and SpaceToDepth. MirrorPad's
folds the mirrored borders of dy back onto the elements they copy (TF.js's keeps only the middle)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import gradient, kernel, slice_axis

Grads = Mapping[str, Callable[[], Tensor]]


def _fold(g: Tensor, axis: int, size: int, lo: int, hi: int, reflect: bool) -> Tensor:
    """g (padded by lo, hi along `axis`) folded back to `size` there: the border copies added
    to the elements they mirror (reflect: from index 1 on; symmetric: from the edge)."""
    out = slice_axis(g, axis, lo, lo + size)
    widths = [(0, 0)] * g.ndim
    if lo:
        start = 1 if reflect else 0
        widths[axis] = (start, size - lo - start)
        out = tp.add(out, tp.pad(tp.flip(slice_axis(g, axis, 0, lo), axis=axis), widths))
    if hi:
        start = size - hi - (1 if reflect else 0)
        widths[axis] = (start, size - start - hi)
        out = tp.add(out, tp.pad(tp.flip(slice_axis(g, axis, lo + size, lo + size + hi), axis=axis), widths))
    return out


@gradient("MirrorPad", inputs=("x",))
def _mirror_pad(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    (x,) = saved

    def dx() -> Tensor:
        g = dy
        for axis, (size, (lo, hi)) in enumerate(zip(x.shape, attrs["paddings"])):
            if lo or hi:
                g = _fold(g, axis, size, lo, hi, attrs["mode"] == "reflect")
        return g

    return {"x": dx}


@gradient("SpaceToBatchND")
def _space_to_batch(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("BatchToSpaceND", dy, block_shape=attrs["block_shape"],
                                crops=attrs["paddings"])}


@gradient("BatchToSpaceND")
def _batch_to_space(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("SpaceToBatchND", dy, block_shape=attrs["block_shape"],
                                paddings=attrs["crops"])}


@gradient("DepthToSpace")
def _depth_to_space(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("SpaceToDepth", dy, **attrs)}


@gradient("SpaceToDepth")
def _space_to_depth(dy: Tensor, saved: tuple[Tensor, ...], attrs: Any) -> Grads:
    return {"x": lambda: kernel("DepthToSpace", dy, **attrs)}
