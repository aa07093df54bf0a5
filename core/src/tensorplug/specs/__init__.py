"""The core's kernel specs, one module per kernel family. Importing this package declares them.

Each spec is a module constant (``elementwise.ADD`` ...) whose ``.name`` is the kernel name.
"""

from .._families import import_families
from ..kernel_spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo

import_families(__name__)

__all__ = ["REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo"]
