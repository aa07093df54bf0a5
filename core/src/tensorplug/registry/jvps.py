"""The JVP rule registry: kernel name -> JvpConfig (forward mode), plus scoped per-thread
overrides. A kernel without a rule still has a JVP where it has a gradient: forward mode
derives it by transposing the gradient (``tensorplug.transforms.autodiff.forward``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tensorplug.core.records import Record
from tensorplug.errors import RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry._rules import RuleTable
from tensorplug.registry._slots import Registration

__all__ = ["JvpConfig", "JvpFunc", "register_jvp", "unregister_jvp", "find_jvp", "override_jvp",
           "jvp_beneath"]

#: ``jvp_func(primals, tangents, outputs, attrs)``: the kernel's input Tensors, their tangents
#: (None where an input has none: a zero tangent, or an integer input), its output Tensors and
#: its attributes. Returns the output's tangent (a tuple, one per output, for a kernel of
#: several; None for an output whose tangent is zero), written with ops.
JvpFunc = Callable[[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], Mapping[str, Any]], Any]


class JvpConfig(Record):
    """The forward-mode rule of one kernel, written with ops so it runs on any backend."""

    __slots__ = ("kernel_name", "jvp_func")
    kernel_name: str
    jvp_func: JvpFunc

    def __init__(self, kernel_name: str, jvp_func: JvpFunc) -> None:
        self._set(kernel_name=kernel_name, jvp_func=jvp_func)


def _check(config: JvpConfig, spec: KernelSpec) -> None:
    if not callable(config.jvp_func):
        raise RegistrationError(f"JvpConfig for '{spec.name}': jvp_func must be callable.")


_RULES = RuleTable(JvpConfig, "jvps", "JVP rule", "JvpConfig(kernel_name=..., jvp_func=...)", check=_check)


def register_jvp(config: JvpConfig, *, override: bool = False, priority: int = 0) -> Registration[JvpConfig]:
    """Register a JVP rule; a different one for a kernel that has one needs ``override=True``."""
    return _RULES.register(config, "register_jvp", override, priority)


def unregister_jvp(kernel_name: str, source: str | None = None) -> None:
    """Remove the active JVP rule (or `source`'s); the one beneath, e.g. the core's, returns."""
    _RULES.unregister(kernel_name, source)


def find_jvp(kernel_name: str) -> JvpConfig | None:
    """The JVP rule in force for this thread: the innermost scoped override, else the registry's
    (None: forward mode transposes the kernel's gradient)."""
    return _RULES.find(kernel_name)


@contextlib.contextmanager
def override_jvp(config: JvpConfig) -> Iterator[JvpConfig]:
    """Use `config` for its kernel inside the block, in this thread only; undone on exit."""
    with _RULES.override(config, "override_jvp"):
        yield config


def jvp_beneath(config: JvpConfig) -> JvpConfig | None:
    """The JVP rule that `config` (registered, or in force in an override block) replaces: the
    one beneath it, looked up at each call, so that an override can build on it (call its
    function and change the result). None when nothing is beneath."""
    return _RULES.beneath(config, "jvp_beneath")
