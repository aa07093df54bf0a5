"""JVP rules of the convolution kernels: each of the three per dimension (the convolution and
its two backprop kernels) is bilinear in its two tensor inputs (shapes are attributes):
``K(tx, w) + K(x, tw)``."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import multilinear
from tensorplug.families.convolution.spec import KERNEL_NAMES

for _names in KERNEL_NAMES.values():
    multilinear(*_names)
