"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import (
    convolution,
    decompositions,
    elementwise,
    fft,
    indexing,
    linalg,
    manipulation,
    nn,
    reductions,
    sorting,
)

__all__ = ["convolution", "decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn",
           "reductions", "sorting"]
