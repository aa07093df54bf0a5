"""``tp.vmap`` and the core's batching rules, one module per kernel family (importing
registers them). A kernel without a rule is batched by a loop over the batch, with a warning."""

from . import (
    convolution,
    counting,
    elementwise,
    fft,
    fused,
    image,
    indexing,
    layout,
    linalg,
    manipulation,
    nn,
    reductions,
    scatter,
    segments,
)
from .vmap import vmap

__all__ = ["vmap", "convolution", "counting", "elementwise", "fft", "fused", "image", "indexing", "layout",
           "linalg", "manipulation", "nn", "reductions", "scatter", "segments"]
