"""``tp.vmap`` and the core's batching rules, one module per kernel family (importing
registers them). A kernel without a rule is batched by a loop over the batch, with a warning."""

from . import (
    elementwise,
    fft,
    fused,
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

__all__ = ["vmap", "elementwise", "fft", "fused", "indexing", "layout", "linalg", "manipulation", "nn",
           "reductions", "scatter", "segments"]
