"""tensorplug's PyTorch backend: a plugin whose native arrays are ``torch.Tensor``s. Importing
this package (or its plugin module) does not import torch; starting the backend does."""

from tensorplug.dtypes import ALL_DTYPES, uint16, uint32, uint64

__all__ = ["BACKEND_NAME", "HELD_DTYPES"]

BACKEND_NAME = "torch"

#: the dtypes the backend holds: those torch computes with (it has no arithmetic on uint16,
#: uint32 and uint64)
HELD_DTYPES = tuple(d for d in ALL_DTYPES if d not in (uint16, uint32, uint64))
