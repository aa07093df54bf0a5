"""Kernel specs of the optimizer-update family: AdamUpdate.

A backend may fuse an optimizer's per-variable update into one kernel (as TensorFlow's
ApplyAdam does); ``tp.optimizers.Adam`` uses it when the active backend has it, eagerly and in
a ``tp.jit`` step alike (the per-step values are tensor inputs), and composes the same update
from ops otherwise. Not differentiable: updates are never on a gradient path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.registry.core_entries import declare_spec


def _adam_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    tensors, scalars = infos[:4], infos[4:]
    if len({i.shape for i in tensors}) != 1:
        raise ShapeError(f"AdamUpdate: param, grad, m and v must have one shape, got "
                         f"{[i.shape for i in tensors]}; pass the moments of the parameter's shape.")
    if any(i.shape != () for i in scalars):
        raise ShapeError(f"AdamUpdate: step_size and epsilon_hat must be 0-d tensors, got shapes "
                         f"{[i.shape for i in scalars]}; pass one value each, e.g. "
                         "tp.asarray(0.001, dtype=param.dtype).")
    return [infos[0], infos[0], infos[0]]


#: step_size (lr * sqrt(1 - beta2**t) / (1 - beta1**t)) and epsilon_hat (epsilon * sqrt(1 -
#: beta2**t)) change at every step: 0-d tensor inputs of the parameter's dtype (a traced step
#: computes them with ops); beta1 and beta2, constants of the optimizer, are attributes
_INPUTS = ("param", "grad", "m", "v", "step_size", "epsilon_hat")

ADAM_UPDATE = declare_spec(KernelSpec(
    name="AdamUpdate", inputs=_INPUTS, outputs=("param", "m", "v"),
    infer=_adam_rule, differentiable=False,
    input_dtypes={n: FLOAT_DTYPES for n in _INPUTS},
    same_dtype=_INPUTS,
    attrs=(AttrSpec("beta1", validate=float), AttrSpec("beta2", validate=float)),
    doc="m' = b1*m + (1-b1)*g; v' = b2*v + (1-b2)*g*g; param' = param - step_size*m'/(sqrt(v')+epsilon_hat)",
))
