"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import (
    decompositions,
    einsum,
    elementwise,
    fft,
    indexing,
    layout,
    linalg,
    manipulation,
    nn,
    reductions,
    sorting,
    structure,
)

__all__ = ["decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn", "reductions",
    "sorting", "einsum", "layout", "structure"]
