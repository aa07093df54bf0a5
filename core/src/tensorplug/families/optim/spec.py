"""Kernel specs of the optimizer-update family: AdamUpdate.

A backend may fuse an optimizer's per-variable update into one kernel (as TensorFlow's
ApplyAdam does); ``tp.optimizers.Adam`` uses it when the active backend has it and composes
the same update from ops otherwise. Not differentiable: updates are never on a gradient path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.registry.core_entries import declare_spec


def _adam_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    shapes = {i.shape for i in infos}
    if len(shapes) != 1:
        raise ShapeError(f"param, grad, m and v must have one shape, got {[i.shape for i in infos]}")
    return [infos[0], infos[0], infos[0]]


ADAM_UPDATE = declare_spec(KernelSpec(
    name="AdamUpdate", inputs=("param", "grad", "m", "v"), outputs=("param", "m", "v"),
    infer=_adam_rule, differentiable=False,
    input_dtypes={n: FLOAT_DTYPES for n in ("param", "grad", "m", "v")},
    same_dtype=("param", "grad", "m", "v"),
    attrs=(AttrSpec("beta1", validate=float), AttrSpec("beta2", validate=float),
           AttrSpec("step_size", validate=float, doc="lr * sqrt(1 - beta2**t) / (1 - beta1**t)"),
           AttrSpec("epsilon_hat", validate=float, doc="epsilon * sqrt(1 - beta2**t)")),
    doc="m' = b1*m + (1-b1)*g; v' = b2*v + (1-b2)*g*g; param' = param - step_size*m'/(sqrt(v')+epsilon_hat)",
))
