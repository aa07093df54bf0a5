"""JVP rule of MatMul: bilinear, ``MatMul(tx, y) + MatMul(x, ty)`` with the same transposes."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import multilinear

multilinear("MatMul")
