"""The core's kernel specs, one module per kernel family. Importing this package declares them.

Each spec is a module constant (``elementwise.ADD`` ...) whose ``.name`` is the kernel name.
"""

from tensorplug._families import import_families
from tensorplug.kernels.spec import REQUIRED, AttrSpec, KernelSpec, TensorInfo

import_families(__name__)

__all__ = ["REQUIRED", "AttrSpec", "KernelSpec", "TensorInfo"]
