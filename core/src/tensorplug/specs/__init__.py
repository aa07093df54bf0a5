"""The core's kernel specs, one module per kernel family. Importing this package declares them.

Each spec is a module constant (``elementwise.ADD`` ...) whose ``.name`` is the kernel name.
"""

from ..kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from . import (
    convolution,
    creation,
    decompositions,
    elementwise,
    fft,
    indexing,
    linalg,
    manipulation,
    nn,
    optim,
    reductions,
    sorting,
)

__all__ = [
    "REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo",
    "convolution", "creation", "decompositions", "elementwise", "fft", "indexing", "linalg", "manipulation",
    "nn", "optim", "reductions", "sorting",
]
