"""JVP rules of the manipulation kernels: each is linear in its input(s) and runs on the
tangents itself; Pad with a nonzero fill is affine, its tangent padded with zeros."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import affine, linear

linear("BroadcastTo", "Concat", "Reshape", "Roll", "Stack", "Transpose")
affine("Pad", {"constant_value": 0})
