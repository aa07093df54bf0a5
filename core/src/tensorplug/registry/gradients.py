"""The gradient registry: kernel name -> GradConfig, plus scoped per-thread overrides."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tensorplug.core.records import Record
from tensorplug.core.runtime import current
from tensorplug.errors import GradientNotFoundError, RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry._rules import RuleTable
from tensorplug.registry._slots import Registration

__all__ = [
    "gradient_beneath",
    "GradConfig",
    "GradFunc",
    "register_gradient",
    "unregister_gradient",
    "get_gradient",
    "find_gradient",
    "override_gradient",
]

#: ``grad_func(dy, saved, attrs)``: ``dy`` is the upstream gradient Tensor (a tuple of them
#: for a multi-output kernel), ``saved`` the tuple of Tensors named by inputs_to_save then
#: outputs_to_save. Returns {input name: zero-argument callable giving that input's gradient}.
GradFunc = Callable[[Any, tuple[Any, ...], Mapping[str, Any]], Mapping[str, Callable[[], Any]]]


class GradConfig(Record):
    """The gradient of one kernel, written with ops so it runs on any backend."""

    __slots__ = ("kernel_name", "grad_func", "inputs_to_save", "outputs_to_save")
    kernel_name: str
    grad_func: GradFunc
    inputs_to_save: tuple[str, ...]
    outputs_to_save: tuple[str, ...]

    def __init__(self, kernel_name: str, grad_func: GradFunc, inputs_to_save: tuple[str, ...] = (),
                 outputs_to_save: tuple[str, ...] = ()) -> None:
        self._set(kernel_name=kernel_name, grad_func=grad_func, inputs_to_save=inputs_to_save,
                  outputs_to_save=outputs_to_save)


def _check(config: GradConfig, spec: KernelSpec) -> None:
    bad_in = [n for n in config.inputs_to_save if n not in spec.inputs]
    bad_out = [n for n in config.outputs_to_save if n not in spec.outputs]
    if bad_in or bad_out:
        raise RegistrationError(
            f"GradConfig for '{spec.name}' saves unknown names {bad_in + bad_out}; the kernel's "
            f"inputs are {list(spec.inputs)} and outputs {list(spec.outputs)}."
        )
    if not callable(config.grad_func):
        raise RegistrationError(f"GradConfig for '{spec.name}': grad_func must be callable.")


_RULES = RuleTable(GradConfig, "gradients", "gradient",
                   "GradConfig(kernel_name=..., grad_func=..., inputs_to_save=(...))", check=_check)


def register_gradient(config: GradConfig, *, override: bool = False,
                      priority: int = 0) -> Registration[GradConfig]:
    """Register a gradient; a different one for a kernel that has one needs ``override=True``
    (or another priority). Overriding the core's default is how plugins change a gradient."""
    return _RULES.register(config, "register_gradient", override, priority)


def unregister_gradient(kernel_name: str, source: str | None = None) -> None:
    """Remove the active gradient (or `source`'s); the one beneath, e.g. the core's, returns."""
    _RULES.unregister(kernel_name, source)


def find_gradient(kernel_name: str) -> GradConfig | None:
    """The gradient in force for this thread: the innermost scoped override, else the registry's."""
    return _RULES.find(kernel_name)


def get_gradient(kernel_name: str) -> GradConfig:
    """Like find_gradient, but GradientNotFoundError (a LookupError) if there is none."""
    config = find_gradient(kernel_name)
    if config is None:
        spec = current().specs.active.get(kernel_name)
        why = "its spec says it is not differentiable" if spec and not spec.differentiable else (
            "none is registered")
        raise GradientNotFoundError(
            f"No gradient for kernel '{kernel_name}': {why}. Register one with "
            "tensorplug.extend.register_gradient(GradConfig(...))."
        )
    return config


@contextlib.contextmanager
def override_gradient(config: GradConfig) -> Iterator[GradConfig]:
    """Use `config` for its kernel inside the block, in this thread only; undone on exit,
    exceptions included. Nothing is registered, so nothing conflicts."""
    with _RULES.override(config, "override_gradient"):
        yield config


def gradient_beneath(config: GradConfig) -> GradConfig | None:
    """The gradient that `config` (registered, or in force in an override block) replaces: the
    one beneath it, looked up at each call, so that an override can build on it (call its
    function and change the result). None when nothing is beneath."""
    return _RULES.beneath(config, "gradient_beneath")
