"""The batching rule registry (``tp.vmap``): kernel name -> BatchConfig, plus scoped
per-thread overrides. A kernel without a rule is batched by a loop over the batch."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tensorplug.core.records import Record
from tensorplug.errors import RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry._rules import RuleTable
from tensorplug.registry._slots import Registration

__all__ = ["BatchConfig", "BatchFunc", "register_batching_rule", "unregister_batching_rule",
           "find_batching_rule", "override_batching_rule", "batching_rule_beneath"]

#: ``batch_func(inputs, batch_axes, attrs)``: the kernel's input Tensors carrying a batch axis
#: at ``batch_axes[i]`` (None: the input is not batched; at least one is), and its attributes.
#: Returns ``(outputs, out_batch_axes)``: the output Tensor(s) for the whole batch, written with
#: ops, and where each carries the batch axis (one int or None for every output, or one per
#: output); or NotImplemented for batch axes it does not handle (vmap then loops).
BatchFunc = Callable[[tuple[Any, ...], tuple[Any, ...], Mapping[str, Any]], tuple[Any, Any]]


class BatchConfig(Record):
    """The batching rule of one kernel, written with ops so it runs on any backend."""

    __slots__ = ("kernel_name", "batch_func")
    kernel_name: str
    batch_func: BatchFunc

    def __init__(self, kernel_name: str, batch_func: BatchFunc) -> None:
        self._set(kernel_name=kernel_name, batch_func=batch_func)


def _check(config: BatchConfig, spec: KernelSpec) -> None:
    if not callable(config.batch_func):
        raise RegistrationError(f"BatchConfig for '{spec.name}': batch_func must be callable.")


_RULES = RuleTable(BatchConfig, "batching", "batching rule", "BatchConfig(kernel_name=..., batch_func=...)",
                   needs_differentiable=False, check=_check)


def register_batching_rule(config: BatchConfig, *, override: bool = False,
                           priority: int = 0) -> Registration[BatchConfig]:
    """Register a batching rule; a different one for a kernel that has one needs ``override=True``."""
    return _RULES.register(config, "register_batching_rule", override, priority)


def unregister_batching_rule(kernel_name: str, source: str | None = None) -> None:
    """Remove the active batching rule (or `source`'s); the one beneath returns."""
    _RULES.unregister(kernel_name, source)


def find_batching_rule(kernel_name: str) -> BatchConfig | None:
    """The batching rule in force for this thread (None: vmap loops over the batch)."""
    return _RULES.find(kernel_name)


@contextlib.contextmanager
def override_batching_rule(config: BatchConfig) -> Iterator[BatchConfig]:
    """Use `config` for its kernel inside the block, in this thread only; undone on exit."""
    with _RULES.override(config, "override_batching_rule"):
        yield config


def batching_rule_beneath(config: BatchConfig) -> BatchConfig | None:
    """The batching rule that `config` (registered, or in force in an override block) replaces: the
    one beneath it, looked up at each call, so that an override can build on it (call its
    function and change the result). None when nothing is beneath."""
    return _RULES.beneath(config, "batching_rule_beneath")
