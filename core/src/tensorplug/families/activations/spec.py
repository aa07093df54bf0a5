"""Kernel specs of the activation family (TF.js's names): Elu and its backward kernel EluGrad,
Relu's backward kernel ReluGrad (TF's), Selu, LeakyRelu, Prelu, Relu6, Step, Softplus, Gelu and
its backward kernel GeluGrad, LogSigmoid;
and the elementwise kernels TF.js has beyond the Array API: SquaredDifference, Rsqrt, AddN.

Every activation takes real floats and gives an output like its input (Prelu's alpha
broadcasts to x). ``prelu_alpha_shape`` and ``add_n_shape`` are shape rules the ops share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tensorplug.dtypes import ALL_NUMERIC_DTYPES, FLOAT_DTYPES, INEXACT_DTYPES
from tensorplug.errors import ShapeError
from tensorplug.kernel_helpers import SELU_ALPHA, SELU_SCALE
from tensorplug.kernels.kernel_spec import AttrSpec, KernelSpec, TensorInfo
from tensorplug.kernels.shape_rules import as_bool, broadcast_rule, broadcast_shapes, op_prefix, same_as_first
from tensorplug.registry.core_entries import declare_spec


def _as_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TypeError(f"expected a real number, got {type(value).__name__}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"expected a finite number, got {out}")
    return out


def _alpha(default: float | None, doc: str) -> AttrSpec:
    return AttrSpec("alpha", 1.0 if default is None else default, _as_float, doc)


def _unary(name: str, doc: str, *attrs: AttrSpec, differentiable: bool = True) -> KernelSpec:
    return declare_spec(KernelSpec(
        name=name, inputs=("x",), infer=same_as_first, input_dtypes={"x": FLOAT_DTYPES},
        attrs=attrs, differentiable=differentiable, doc=doc,
    ))


def prelu_alpha_shape(x_shape: Sequence[int], alpha_shape: Sequence[int], op: str | None = None) -> None:
    """Check that Prelu's alpha broadcasts to x's shape (without growing it); ShapeError naming
    `op` otherwise."""
    try:
        shape = broadcast_shapes(x_shape, alpha_shape)
    except ShapeError:
        shape = None
    if shape != tuple(x_shape):
        raise ShapeError(f"{op_prefix(op)}alpha of shape {tuple(alpha_shape)} does not broadcast to x's "
                         f"shape {tuple(x_shape)}; give alpha x's trailing sizes (or 1s).")


def _prelu_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    prelu_alpha_shape(infos[0].shape, infos[1].shape)
    return [infos[0]]


def add_n_shape(shapes: Sequence[Sequence[int]], op: str | None = None) -> tuple[int, ...]:
    """The shape of AddN's inputs, which must all be equal (no broadcasting, as TF.js);
    ShapeError naming `op` and the first input that differs."""
    first = tuple(shapes[0])
    for i, s in enumerate(shapes):
        if tuple(s) != first:
            raise ShapeError(f"{op_prefix(op)}inputs must have equal shapes; input {i} has {tuple(s)}, "
                             f"input 0 has {first}. Broadcast them first (tp.broadcast_to).")
    return first


def _add_n_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    return [TensorInfo(add_n_shape([i.shape for i in infos]), infos[0].dtype)]


def _grad_rule(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    dy, other = infos
    if tuple(dy.shape) != tuple(other.shape):
        raise ShapeError(f"dy of shape {dy.shape} and the saved tensor of shape {other.shape} must "
                         "have equal shapes.")
    return [dy]


_APPROXIMATE = AttrSpec("approximate", True, as_bool, "the tanh approximation (else the exact erf form)")

ELU = _unary("Elu", "x where x > 0, else alpha * (exp(x) - 1)",
             _alpha(1.0, "the value approached as x -> -inf is -alpha"))
ELU_GRAD = declare_spec(KernelSpec(
    name="EluGrad", inputs=("dy", "y"), infer=_grad_rule,
    input_dtypes={"dy": FLOAT_DTYPES, "y": FLOAT_DTYPES}, same_dtype=("dy", "y"),
    attrs=(_alpha(1.0, "Elu's alpha"),),
    doc="Elu's backward kernel from its output y: dy where y > 0, else dy * (y + alpha)",
))
RELU_GRAD = declare_spec(KernelSpec(
    name="ReluGrad", inputs=("dy", "x"), infer=_grad_rule,
    input_dtypes={"dy": FLOAT_DTYPES, "x": FLOAT_DTYPES}, same_dtype=("dy", "x"),
    doc="Relu's backward kernel (TF's ReluGrad): dy where x > 0, else +0.0 (x NaN included)",
))
SELU = _unary("Selu", f"scale * elu(x, alpha) with alpha = {SELU_ALPHA:.6f}, scale = {SELU_SCALE:.6f}")
LEAKY_RELU = _unary("LeakyRelu", "x where x >= 0, else alpha * x",
                    _alpha(0.2, "the slope for negative x (TF.js's default 0.2; tp.nn's 0.01)"))
PRELU = declare_spec(KernelSpec(
    name="Prelu", inputs=("x", "alpha"), infer=_prelu_rule,
    input_dtypes={"x": FLOAT_DTYPES, "alpha": FLOAT_DTYPES}, same_dtype=("x", "alpha"),
    doc="x where x > 0, else alpha * x, alpha (a tensor) broadcast to x; gradients for both",
))
RELU6 = _unary("Relu6", "min(max(x, 0), 6); gradient where 0 < x <= 6")
STEP = _unary("Step", "1 where x > 0, else alpha (NaN stays NaN); gradient zero, as TF.js",
              _alpha(0.0, "the value where x <= 0"))
SOFTPLUS = _unary("Softplus", "log(1 + exp(x)), computed as logaddexp(x, 0): no overflow")
GELU = _unary("Gelu", "x * Phi(x): the exact erf form, or its tanh approximation (jax.nn.gelu)",
              _APPROXIMATE)
GELU_GRAD = declare_spec(KernelSpec(
    name="GeluGrad", inputs=("dy", "x"), infer=_grad_rule,
    input_dtypes={"dy": FLOAT_DTYPES, "x": FLOAT_DTYPES}, same_dtype=("dy", "x"),
    attrs=(_APPROXIMATE,),
    doc="Gelu's backward kernel: dy * d gelu(x) / dx",
))
LOG_SIGMOID = _unary("LogSigmoid", "log(sigmoid(x)) = -softplus(-x), computed stably")

SQUARED_DIFFERENCE = declare_spec(KernelSpec(
    name="SquaredDifference", inputs=("x", "y"), infer=broadcast_rule(),
    input_dtypes={"x": ALL_NUMERIC_DTYPES, "y": ALL_NUMERIC_DTYPES}, same_dtype=("x", "y"),
    doc="(x - y) * conj(x - y) with broadcasting (TF's definition: |x - y| ** 2 for complex)",
))
RSQRT = declare_spec(KernelSpec(
    name="Rsqrt", inputs=("x",), infer=same_as_first, input_dtypes={"x": INEXACT_DTYPES},
    doc="1 / sqrt(x)",
))
ADD_N = declare_spec(KernelSpec(
    name="AddN", inputs=("xs",), infer=_add_n_rule, variadic=True, same_dtype=("xs",),
    input_dtypes={"xs": ALL_NUMERIC_DTYPES},
    doc="the elementwise sum of any number of tensors of one shape and dtype",
))
