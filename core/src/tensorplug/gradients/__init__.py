"""The core's default gradients, one module per kernel family (importing registers them)."""

from . import elementwise, indexing, linalg, manipulation, nn, reductions, sorting

__all__ = ["elementwise", "indexing", "linalg", "manipulation", "nn", "reductions", "sorting"]
