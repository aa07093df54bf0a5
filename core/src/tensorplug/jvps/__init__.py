"""The core's JVP rules (forward mode), one module per kernel family (importing registers
them). A differentiable kernel without a rule here gets its JVP by transposing its gradient."""

from . import (
    activations,
    decompositions,
    einsum,
    elementwise,
    fft,
    fused,
    linalg,
    nn,
    normalization,
    reductions,
)

__all__ = [
    "activations",
    "decompositions",
    "einsum",
    "elementwise",
    "fft",
    "fused",
    "linalg",
    "nn",
    "normalization",
    "reductions",
]
