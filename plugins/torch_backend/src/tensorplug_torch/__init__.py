"""tensorplug's PyTorch backend: a plugin whose native arrays are ``torch.Tensor``s. Importing
this package (or its plugin module) does not import torch; starting the backend does."""

from tensorplug.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

__all__ = ["BACKEND_NAME", "HELD_DTYPES"]

BACKEND_NAME = "torch"

#: the dtypes the backend holds: those torch computes with (torch has no arithmetic on uint16,
#: uint32 and uint64)
HELD_DTYPES = (bool_, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64,
               complex64, complex128)
