"""The generic Threefry2x32 kernel: the hash written once over a backend's own uint32 kernels
(Add wraps modulo 2**32; LeftShift, RightShift, BitwiseOr and BitwiseXor), so that a backend
without a kernel of its own still draws keys, bit for bit JAX's (``registry/generic_kernels.py``
registers it when such a backend starts). It costs ~115 kernel calls on full-size arrays: the
numpy and jax backends have kernels of their own (numpy: fused, in place and in cache-sized
chunks; jax: its own threefry), which the conformance kit checks against the same reference."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.families.control_flow.graphs import kernel_function_of
from tensorplug.kernel_helpers.random_constants import THREEFRY_PARITY, THREEFRY_ROTATIONS
from tensorplug.registry.generic_kernels import declare_generic_kernel

__all__ = ["threefry_kernel"]


def threefry_kernel(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Backend) -> tuple[Any, Any]:
    """Threefry-2x32, 20 rounds, of the key words (k1, k2) over the counter words (x1, x2):
    native uint32 arrays that broadcast together; the two output words."""
    add, xor, or_, left, right = (kernel_function_of(name, backend) for name in
                                  ("Add", "BitwiseXor", "BitwiseOr", "LeftShift", "RightShift"))

    def word(value: int) -> Any:
        return backend.from_numpy(np.array(value, np.uint32))

    k1, k2, x1, x2 = inputs
    schedule = (k1, k2, xor((xor((k1, k2), {}, backend), word(THREEFRY_PARITY)), {}, backend))
    a, b = add((k1, x1), {}, backend), add((k2, x2), {}, backend)
    for group in range(5):
        for r in THREEFRY_ROTATIONS[group % 2]:
            a = add((a, b), {}, backend)
            rotated = or_((left((b, word(r)), {}, backend), right((b, word(32 - r)), {}, backend)), {},
                          backend)
            b = xor((rotated, a), {}, backend)
        a = add((a, schedule[(group + 1) % 3]), {}, backend)
        # (the round's constant joins the key word first)
        b = add((b, add((schedule[(group + 2) % 3], word(group + 1)), {}, backend)), {}, backend)
    return a, b


declare_generic_kernel("Threefry2x32", threefry_kernel)
