"""The core's kernel specs, one module per kernel family. Importing this package declares them.

Each spec is a module constant (``elementwise.ADD`` ...) whose ``.name`` is the kernel name.
"""

from ..kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from . import (
    activations,
    creation,
    decompositions,
    einsum,
    elementwise,
    fft,
    indexing,
    layout,
    linalg,
    manipulation,
    nn,
    normalization,
    optim,
    pooling,
    reductions,
    sorting,
    structure,
)

__all__ = [
    "REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo", "activations",
    "creation", "decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation", "nn", "optim",
    "reductions", "sorting",
    "einsum", "layout", "structure",
]
__all__ += ["normalization", "pooling"]  # (issue 15)
