"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import decompositions, elementwise, fft, indexing, linalg, manipulation, nn, reductions, sorting
from . import layout, structure

__all__ = ["decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn", "reductions",
           "sorting", "layout", "structure"]
