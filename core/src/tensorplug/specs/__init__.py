"""The core's kernel specs, one module per kernel family. Importing this package declares them.

Each spec is a module constant (``elementwise.ADD`` ...) whose ``.name`` is the kernel name.
"""

from ..kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo
from . import (
    activations,
    convolution,
    creation,
    decompositions,
    einsum,
    elementwise,
    fft,
    fused,
    image,
    indexing,
    layout,
    linalg,
    linspace,
    manipulation,
    multinomial,
    nn,
    normalization,
    optim,
    pooling,
    reductions,
    scatter_nd,
    segments,
    sorting,
    sparse,
    structure,
)

__all__ = ["REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo", "activations", "convolution", "creation",
           "decompositions", "einsum", "elementwise", "fft", "fused", "image", "indexing", "layout", "linalg",
           "linspace", "manipulation", "multinomial", "nn", "normalization", "optim", "pooling", "reductions",
           "scatter_nd", "segments", "sorting", "sparse", "structure"]
