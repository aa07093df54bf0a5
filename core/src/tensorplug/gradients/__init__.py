"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import (
    activations,
    convolution,
    decompositions,
    einsum,
    elementwise,
    fft,
    fused,
    image,
    indexing,
    layout,
    linalg,
    manipulation,
    nn,
    normalization,
    pooling,
    reductions,
    scatter_nd,
    segments,
    sorting,
    sparse,
    structure,
)

__all__ = ["activations", "convolution", "decompositions", "einsum", "elementwise", "fft", "fused", "image",
           "indexing", "layout", "linalg", "manipulation", "nn", "normalization", "pooling", "reductions",
           "scatter_nd", "segments", "sorting", "sparse", "structure"]
