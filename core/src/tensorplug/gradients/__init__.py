"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import (
    activations,
    decompositions,
    elementwise,
    fft,
    indexing,
    linalg,
    manipulation,
    nn,
    normalization,
    pooling,
    reductions,
    sorting,
)

__all__ = ["activations", "decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn",
           "normalization", "pooling", "reductions", "sorting"]
