"""The ONNX lowering registry (``tp.export.onnx``): kernel name -> OnnxLowering, plus scoped
per-thread overrides. A kernel without a lowering cannot be exported to ONNX; the export says
which, before it writes anything."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tensorplug.core.records import Record
from tensorplug.errors import RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry._rules import RuleTable
from tensorplug.registry._slots import Registration

__all__ = ["OnnxLowering", "LowerFunc", "register_onnx_lowering", "unregister_onnx_lowering",
           "find_onnx_lowering", "override_onnx_lowering"]

#: ``lower(ctx)``: writes the ONNX nodes of one kernel call through ``ctx``
#: (a ``tensorplug.exporting.context.LoweringContext``: the call's ONNX value names, attributes,
#: input and output shapes and dtypes, and ``ctx.node(...)``/``ctx.constant(...)``). The nodes
#: must compute the kernel's outputs into ``ctx.outputs``.
LowerFunc = Callable[[Any], None]


class OnnxLowering(Record):
    """How one kernel is written as ONNX operators (standard opset 21 domain). ``complex_pairs``:
    the lowering handles complex values too, which the graph holds as real tensors with a
    trailing axis of 2 (real, imaginary): ONNX has no complex dtype. A call on complex values
    of a kernel whose lowering does not say so cannot be exported. ``min_opset``: the oldest
    standard opset whose operators the lowering writes (a newer one than the default 21, e.g.
    for ``BitCast``, makes export ask for ``opset=`` that new)."""

    __slots__ = ("kernel_name", "lower", "complex_pairs", "min_opset")
    kernel_name: str
    lower: LowerFunc
    complex_pairs: bool
    min_opset: int

    def __init__(self, kernel_name: str, lower: LowerFunc, complex_pairs: bool = False,
                 min_opset: int = 21) -> None:
        self._set(kernel_name=kernel_name, lower=lower, complex_pairs=complex_pairs, min_opset=min_opset)


def _check(config: OnnxLowering, spec: KernelSpec) -> None:
    if not callable(config.lower):
        raise RegistrationError(f"OnnxLowering for '{spec.name}': lower must be callable.")
    if not isinstance(config.complex_pairs, bool):
        raise RegistrationError(f"OnnxLowering for '{spec.name}': complex_pairs must be True or False, got "
                                f"{config.complex_pairs!r}.")
    if type(config.min_opset) is not int or config.min_opset < 1:
        raise RegistrationError(f"OnnxLowering for '{spec.name}': min_opset must be an ONNX opset number (an "
                                f"int such as 21), got {config.min_opset!r}.")


_RULES = RuleTable(OnnxLowering, "onnx_lowerings", "ONNX lowering",
                   "OnnxLowering(kernel_name=..., lower=...)", needs_differentiable=False, check=_check)


def register_onnx_lowering(config: OnnxLowering, *, override: bool = False,
                           priority: int = 0) -> Registration[OnnxLowering]:
    """Register an ONNX lowering; a different one for a kernel that has one needs ``override=True``."""
    return _RULES.register(config, "register_onnx_lowering", override, priority)


def unregister_onnx_lowering(kernel_name: str, source: str | None = None) -> None:
    """Remove the active ONNX lowering (or `source`'s); the one beneath, e.g. the core's, returns."""
    _RULES.unregister(kernel_name, source)


def find_onnx_lowering(kernel_name: str) -> OnnxLowering | None:
    """The ONNX lowering in force for this thread (None: the kernel cannot be exported)."""
    return _RULES.find(kernel_name)


@contextlib.contextmanager
def override_onnx_lowering(config: OnnxLowering) -> Iterator[OnnxLowering]:
    """Use `config` for its kernel inside the block, in this thread only; undone on exit."""
    with _RULES.override(config, "override_onnx_lowering"):
        yield config
