"""Path 2 of the guide, the backend-independent half of a new kernel: the kernel spec of
``Erf``, the op that dispatches it, and its gradient (written with ops, so it runs on every
backend and can itself be differentiated). The kernels, one per backend, are in ``kernels.py``;
``plugin.py`` registers all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import tensorplug as tp
from tensorplug.extend import (
    BatchConfig,
    Dispatcher,
    GradConfig,
    JvpConfig,
    KernelSpec,
    LoweringContext,
    OnnxLowering,
    TensorInfo,
)

__all__ = ["ERF", "ERF_SPEC", "ERF_GRADIENT", "ERF_JVP", "ERF_BATCHING", "erf"]

#: The kernel name: declared once here, used by the spec, the kernels, the gradient and the op.
ERF = "Erf"


def _same_as_input(infos: Sequence[TensorInfo], attrs: Mapping[str, Any]) -> list[TensorInfo]:
    """Output rule: one output with the input's shape and dtype."""
    return [infos[0]]


ERF_SPEC = KernelSpec(
    name=ERF,
    inputs=("x",),
    infer=_same_as_input,
    input_dtypes={"x": (tp.float32, tp.float64)},
    doc="the error function 2 / sqrt(pi) * integral from 0 to x of exp(-t ** 2) dt",
)


#: The op's dispatcher, made once: it finds the active backend's Erf kernel (spec and kernels
#: are registered when the plugin loads, before the first call) and runs it as core ops run
#: theirs; ``tp.run_kernel(ERF, {"x": x})`` would do the same, checking the spec on every call.
_ERF = Dispatcher(ERF)


def erf(x: Any) -> tp.Tensor:
    """The error function, elementwise; integer and bool inputs become the default float."""
    x = tp.asarray(x)
    if x.dtype.kind != "float":
        x = tp.astype(x, tp.dtypes.default_float)
    result: tp.Tensor = _ERF.unary(x)  # one output: a Tensor
    return result


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_gradient(dy: tp.Tensor, saved: tuple[tp.Tensor, ...],
                  attrs: Mapping[str, Any]) -> dict[str, Callable[[], tp.Tensor]]:
    """d erf(x) / dx = 2 / sqrt(pi) * exp(-x ** 2)."""
    (x,) = saved
    return {"x": lambda: dy * (_TWO_OVER_SQRT_PI * tp.exp(-tp.square(x)))}


ERF_GRADIENT = GradConfig(ERF, _erf_gradient, inputs_to_save=("x",))


def _erf_jvp(primals: Sequence[tp.Tensor], tangents: Sequence[tp.Tensor | None],
             outputs: Sequence[tp.Tensor], attrs: Mapping[str, Any]) -> tp.Tensor:
    """Forward mode: the tangent times erf'(x) = 2 / sqrt(pi) * exp(-x ** 2). (Without this
    rule forward mode would still work, by transposing the gradient: slower.)"""
    (x,), (t,) = primals, tangents
    return t * (_TWO_OVER_SQRT_PI * tp.exp(-tp.square(x)))


ERF_JVP = JvpConfig(ERF, _erf_jvp)


def _erf_batching(inputs: Sequence[tp.Tensor], batch_axes: Sequence[int | None],
                  attrs: Mapping[str, Any]) -> tuple[tp.Tensor, int | None]:
    """tp.vmap: Erf is elementwise, so the kernel runs once on the whole batch and the batch
    axis stays where it is. (Without this rule vmap would loop over the examples, warning.)"""
    return _ERF(inputs, attrs), batch_axes[0]


ERF_BATCHING = BatchConfig(ERF, _erf_batching)


def _erf_onnx(ctx: LoweringContext) -> None:
    ctx.node("Erf", ctx.inputs, ctx.out)  # (ONNX has the operator: one node)


#: how ``tp.export.onnx`` writes the kernel: ONNX's own ``Erf``
ERF_ONNX = OnnxLowering(ERF, _erf_onnx)
