"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import decompositions, elementwise, fft, indexing, linalg, manipulation, nn, reductions, sorting
from . import convolution

__all__ = ["decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn", "reductions",
           "sorting"]
__all__ += ["convolution"]
