"""JVP rule of Einsum: linear in each operand, the sum of the einsums with one operand
replaced by its tangent."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import multilinear

multilinear("Einsum")
