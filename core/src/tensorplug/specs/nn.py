"""Kernel specs of the neural-network family: Softmax and LogSoftmax (numerically stable)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..dtypes import FLOAT_DTYPES
from ..kernel_spec import AttrSpec, KernelSpec, TensorInfo
from ..registry.specs import register_kernel_spec
from ._rules import as_int, normalize_axis


def _softmax_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    normalize_axis(attrs["axis"], len(infos[0].shape), allow_0d=True)
    return [infos[0]]


SOFTMAX = register_kernel_spec(KernelSpec(
    name="Softmax", inputs=("x",), infer=_softmax_rule, input_dtypes={"x": FLOAT_DTYPES},
    attrs=(AttrSpec("axis", -1, as_int, "the axis to normalize"),),
    doc="exp(x) / sum(exp(x)) along axis, computed with the max subtracted",
))
LOG_SOFTMAX = register_kernel_spec(KernelSpec(
    name="LogSoftmax", inputs=("x",), infer=_softmax_rule, input_dtypes={"x": FLOAT_DTYPES},
    attrs=(AttrSpec("axis", -1, as_int, "the axis to normalize"),),
    doc="x - logsumexp(x) along axis, computed stably",
))
