"""The core's JVP rules (forward mode), one module per kernel family (importing registers
them). A differentiable kernel without a rule here gets its JVP by transposing its gradient."""

from . import (
    convolution,
    elementwise,
    image,
    indexing,
    layout,
    manipulation,
    pooling,
    scatter_nd,
    segments,
    sorting,
    sparse,
    structure,
)

__all__ = [
    "convolution",
    "elementwise",
    "image",
    "indexing",
    "layout",
    "manipulation",
    "pooling",
    "scatter_nd",
    "segments",
    "sorting",
    "sparse",
    "structure",
]
