"""Kernel specs of the neural-network family: Softmax and LogSoftmax (numerically stable), and
SparseSoftmaxCrossEntropyWithLogits (TF's fused loss of integer class labels)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import FLOAT_DTYPES, int32, int64
from tensorplug.errors import ShapeError
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo, describe
from tensorplug.kernels.shape_rules import as_int, normalize_axis
from tensorplug.registry.core_entries import declare_spec


def _softmax_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    normalize_axis(attrs["axis"], len(infos[0].shape), allow_0d=True)
    return [infos[0]]


SOFTMAX = declare_spec(KernelSpec(
    name="Softmax", inputs=("x",), infer=_softmax_rule, input_dtypes={"x": FLOAT_DTYPES},
    attrs=(AttrSpec("axis", -1, as_int, "the axis to normalize"),),
    doc="exp(x) / sum(exp(x)) along axis, computed with the max subtracted",
))
LOG_SOFTMAX = declare_spec(KernelSpec(
    name="LogSoftmax", inputs=("x",), infer=_softmax_rule, input_dtypes={"x": FLOAT_DTYPES},
    attrs=(AttrSpec("axis", -1, as_int, "the axis to normalize"),),
    doc="x - logsumexp(x) along axis, computed stably",
))


def _sparse_xent_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    features, labels = infos
    if len(features.shape) != 2 or labels.shape != features.shape[:1]:
        raise ShapeError(f"features must be (batch, classes) and labels (batch,), got features "
                         f"{describe(features)} and labels {describe(labels)}; flatten the leading "
                         "axes of both first.")
    return [TensorInfo(features.shape[:1], features.dtype), features]


SPARSE_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS = declare_spec(KernelSpec(
    name="SparseSoftmaxCrossEntropyWithLogits", inputs=("features", "labels"),
    outputs=("loss", "backprop"), infer=_sparse_xent_rule,
    input_dtypes={"features": FLOAT_DTYPES, "labels": (int32, int64)},
    doc="per row: loss = logsumexp(features) - features[label], backprop = softmax(features) - "
        "one_hot(label); a label outside [0, classes) gives a row of NaN in both",
))
