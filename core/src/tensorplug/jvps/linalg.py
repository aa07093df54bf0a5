"""JVP rule of MatMul: bilinear, ``MatMul(tx, y) + MatMul(x, ty)`` with the same transposes."""

from __future__ import annotations

from tensorplug.jvps._util import multilinear

multilinear("MatMul")
