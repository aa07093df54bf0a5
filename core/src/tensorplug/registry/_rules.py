"""What the per-kernel rule registries (gradients, JVP rules, batching rules) share: one table
of the runtime per kind of rule, a config checked against its kernel's spec at registration,
and per-thread scoped overrides that beat the registry."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from tensorplug.core.runtime import ACTIVE, current
from tensorplug.errors import RegistrationError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry._slots import Registration, SlotTable
from tensorplug.registry.specs import spec_not_found

C = TypeVar("C")


class _Scoped(threading.local, Generic[C]):
    def __init__(self) -> None:
        self.stack: list[C] = []


class RuleTable(Generic[C]):
    """The verbs of one kind of per-kernel rule: `kind` is its config class (with a
    ``kernel_name`` field), `attribute` the runtime's table holding them, `rule` what messages
    call it, `example` how to build a config; `check` adds checks of its own."""

    def __init__(self, kind: type[C], attribute: str, rule: str, example: str, *,
                 needs_differentiable: bool = True,
                 check: Callable[[C, KernelSpec], None] | None = None) -> None:
        self.kind = kind
        self.attribute = attribute
        self.rule = rule
        self.example = example
        self.needs_differentiable = needs_differentiable
        self.check = check
        self.scoped: _Scoped[C] = _Scoped()

    def table(self) -> SlotTable[str, C]:
        return getattr(ACTIVE.runtime, self.attribute)

    def validate(self, config: Any, verb: str) -> KernelSpec:
        if not isinstance(config, self.kind):
            raise RegistrationError(f"{verb} takes a {self.kind.__name__}, got {type(config).__name__}: "
                                    f"build one with {self.example}.")
        spec = current().specs.active.get(config.kernel_name)  # type: ignore[attr-defined]
        if spec is None:
            raise spec_not_found(config.kernel_name)  # type: ignore[attr-defined]
        if self.needs_differentiable and not spec.differentiable:
            raise RegistrationError(
                f"Kernel spec '{spec.name}' is declared not differentiable, so it takes no {self.rule}.")
        if self.check is not None:
            self.check(config, spec)
        return spec

    def register(self, config: C, verb: str, override: bool, priority: int) -> Registration[C]:
        self.validate(config, verb)
        return self.table().add(config.kernel_name, config,  # type: ignore[attr-defined]
                                override=override, priority=priority)

    def unregister(self, kernel_name: str, source: str | None) -> None:
        self.table().remove(kernel_name, source)

    def find(self, kernel_name: str) -> C | None:
        """The innermost scoped override for `kernel_name` in this thread, else the registry's."""
        stack = self.scoped.stack
        if stack:
            for config in reversed(stack):
                if config.kernel_name == kernel_name:  # type: ignore[attr-defined]
                    return config
        table: SlotTable[str, C] = getattr(ACTIVE.runtime, self.attribute)  # (on the hot path)
        return table.active.get(kernel_name)

    def beneath(self, config: C, verb: str) -> C | None:
        """The rule `config` replaces, looked up now: for a scoped override in this thread, the
        next one of its kernel outside it, else the registry's; for a registered rule, the
        registration beneath it in its slot (None if it is the lowest). RegistrationError if
        `config` is neither in force in a scope nor registered."""
        name = config.kernel_name  # type: ignore[attr-defined]
        stack = self.scoped.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is config:
                outer = [c for c in stack[:i] if c.kernel_name == name]  # type: ignore[attr-defined]
                return outer[-1] if outer else self.table().active.get(name)
        regs = self.table().stacks.get(name, [])
        for i, reg in enumerate(regs):
            if reg.config is config:
                return regs[i - 1].config if i else None
        raise RegistrationError(f"{verb}: this {self.kind.__name__} for '{name}' is not registered, nor in "
                                f"force in an override block: the {self.rule} beneath a rule is the one it "
                                "replaces, so ask from within a registered (or overriding) rule.")

    @contextlib.contextmanager
    def override(self, config: C, verb: str) -> Iterator[C]:
        """`config` in force inside the block, in this thread only (undone on exit)."""
        self.validate(config, verb)
        self.scoped.stack.append(config)
        try:
            yield config
        finally:
            self.scoped.stack.remove(config)
