"""What the ``tensorplug`` subcommands report on, gathered from the registries: plugins
loaded quietly (their problems are reported, not warned), backends started, and the
registrations that replaced others (overrides in force)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from tensorplug.backends import lifecycle as _backend
from tensorplug.core.runtime import current
from tensorplug.core.version import __version__
from tensorplug.errors import PluginError, TensorplugPluginWarning
from tensorplug.plugins import manager as _manager
from tensorplug.registry._slots import CORE_SOURCE, USER_SOURCE, Registration

__all__ = ["USER_SOURCE", "Override", "load_quietly", "start_backends", "overrides", "label", "key_text",
           "default_backend", "environment"]

#: The registries whose replaced registrations count as overrides, in the order they are listed.
_RULE_KINDS = ("gradient", "JVP rule", "batching rule", "ONNX lowering")  # keyed by kernel name
_KINDS = ("kernel", "gradient", "JVP rule", "batching rule", "ONNX lowering", "kernel spec", "op",
          "backend")


def load_quietly() -> PluginError | None:
    """Load the plugins without warnings (the problems are listed by the caller); in strict
    mode, return the error loading raised instead of raising it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TensorplugPluginWarning)
        try:
            _manager.load_plugins()
        except PluginError as exc:
            return exc
    return None


def start_backends(names: list[str] | None = None) -> dict[str, str | None]:
    """Start each backend (all registered ones by default) so that plugins register their
    kernels for it: name -> None if it started, else why not."""
    started: dict[str, str | None] = {}
    for name in _registered_backends() if names is None else names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TensorplugPluginWarning)
            try:
                _backend.start_backend(name)
                started[name] = None
            except Exception as exc:  # a diagnostic tool reports whatever a backend raises
                started[name] = f"{type(exc).__name__}: {exc}"
    return started


def default_backend() -> str | None:
    """The backend tensorplug would use first, without starting one."""
    chosen = current().default_backend or os.environ.get(_backend.ENV_BACKEND)
    if chosen:
        return chosen
    names = _registered_backends()
    return names[0] if names else None


def _registered_backends() -> list[str]:
    """The registered backends, highest priority first, as ``tp.list_backends`` gives them but
    without raising the strict-mode error that a report is there to show."""
    load_quietly()
    configs = current().backends.active.values()
    return [c.name for c in sorted(configs, key=lambda c: (-c.priority, c.name))]


def environment() -> list[str]:
    """The environment variables that change plugin loading, as 'NAME=value' (set ones only)."""
    names = (_manager.ENV_STRICT, _manager.ENV_DISABLE, _backend.ENV_BACKEND)
    return [f"{n}={os.environ[n]}" for n in names if os.environ.get(n)]


def label(source: str) -> str:
    """A registrant as people know it: a plugin with its distribution and version."""
    if source == CORE_SOURCE:
        return f"{CORE_SOURCE} {__version__}"
    info = current().plugins.plugins.get(source)
    if info is None or not info.distribution:
        return source
    version = f" {info.version}" if info.version else ""
    if info.distribution == source:
        return f"{source}{version}"
    return f"{source} ({info.distribution}{version})"


def key_text(key: Hashable) -> str:
    if isinstance(key, tuple):
        return f"{key[0]} on {key[1]}"
    return str(key)


@dataclass(frozen=True)
class Override:
    """A slot whose active registration replaced other ones."""

    kind: str  # "kernel", "gradient", ...
    key: Hashable
    active: Registration[Any]
    replaced: tuple[Registration[Any], ...]

    @property
    def how(self) -> str:
        top = max(r.priority for r in self.replaced)
        if self.active.priority > top:
            return f"priority {self.active.priority} > {top}"
        return "override=True"

    def describe(self) -> str:
        rule = self.kind in _RULE_KINDS
        what = f"{self.kind} of {self.key}" if rule else f"{self.kind} {key_text(self.key)}"
        others = ", ".join(f"{r.source}'s" for r in self.replaced)
        return f"{what}: {self.active.source} replaces {others} ({self.how})"


def overrides(kinds: tuple[str, ...] | None = None) -> list[Override]:
    """Every slot (of the given kinds) whose active registration sits on top of others."""
    found = []
    tables = current().tables()
    for kind in _KINDS:
        table = tables[kind]
        if kinds is not None and kind not in kinds:
            continue
        for key, stack in sorted(table.registrations(), key=lambda kv: str(kv[0])):
            if len(stack) > 1:
                found.append(Override(kind, key, stack[-1], tuple(stack[:-1])))
    return found
