"""Plugin problems: what a plugin got wrong (``PluginProblem``), reported as a warning naming it
or, in strict mode (``TENSORPLUG_STRICT_PLUGINS=1``), as a ``PluginError`` that the runtime
keeps and raises again at every use until the environment is fixed."""

from __future__ import annotations

import contextlib
import contextvars
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tensorplug.core.records import Record
from tensorplug.core.runtime import PluginState, current
from tensorplug.errors import (
    PluginError,
    PluginVersionError,
    RegistrationConflictError,
    TensorplugPluginWarning,
)

__all__ = ["ENV_STRICT", "PluginInfo", "PluginProblem", "plugin_state", "raise_problems", "strict",
           "strict_requested", "diagnosing", "report", "deferring_strict_errors", "report_backend_failure"]

ENV_STRICT = "TENSORPLUG_STRICT_PLUGINS"


@dataclass
class PluginInfo:
    """A plugin tensorplug knows of: where it came from and whether it is active."""

    name: str
    module: Any = None
    distribution: str | None = None
    version: str | None = None
    origin: str = "entry point"  # or "registered by hand"
    active: bool = False


class PluginProblem(Record):
    """Something a plugin got wrong: which plugin, at what stage, why, and the fix."""

    __slots__ = ("plugin", "distribution", "stage", "cause", "fix", "error_type")
    plugin: str
    distribution: str | None
    stage: str
    cause: str
    fix: str
    error_type: type[BaseException] | None  # the exception behind it, if one was raised

    def __init__(self, plugin: str, distribution: str | None, stage: str, cause: str, fix: str,
                 error_type: type[BaseException] | None = None) -> None:
        self._set(plugin=plugin, distribution=distribution, stage=stage, cause=cause, fix=fix,
                  error_type=error_type)

    def message(self) -> str:
        """The problem as one sentence: plugin, distribution, stage, cause and fix."""
        dist = f" (distribution {self.distribution})" if self.distribution else ""
        cause = self.cause if self.cause.endswith(".") else f"{self.cause}."
        return f"tensorplug plugin '{self.plugin}'{dist} failed at {self.stage}: {cause} {self.fix}"


def plugin_state() -> PluginState:
    """The plugin manager's state, kept on the runtime."""
    return current().plugins


#: Hand registration raises on problems whatever the environment says.
raise_problems: contextvars.ContextVar[bool] = contextvars.ContextVar("tensorplug_raise", default=False)


#: A diagnosis (``tensorplug doctor``) records problems to list them, strict mode or not.
_diagnosing: contextvars.ContextVar[bool] = contextvars.ContextVar("tensorplug_diagnosing", default=False)


def strict_requested() -> bool:
    """Whether the environment asks for strict mode (``TENSORPLUG_STRICT_PLUGINS``)."""
    return os.environ.get(ENV_STRICT, "").lower() not in ("", "0", "false", "no")


def strict() -> bool:
    return raise_problems.get() or (strict_requested() and not _diagnosing.get())


@contextlib.contextmanager
def diagnosing() -> Iterator[None]:
    """Within: plugin problems are recorded (and listed by the caller), not raised, even in
    strict mode; an error strict mode remembered from before is not raised again either."""
    token = _diagnosing.set(True)
    try:
        yield
    finally:
        _diagnosing.reset(token)


# Strict-mode errors met while all plugins load (or a backend's kernels register) are collected
# here and raised once that is done, so that one broken plugin does not stop the others loading.
_deferred: contextvars.ContextVar[list[PluginError] | None] = contextvars.ContextVar(
    "tensorplug_deferred", default=None)


def report(info: PluginInfo, stage: str, exc: BaseException | str, fix: str) -> None:
    cause = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    if isinstance(exc, RegistrationConflictError):
        fix = ("Its registration clashes with the one named above: uninstall one of the two, or, "
               "where replacing it is meant, register with override=True. " + fix)
    problem = PluginProblem(info.name, info.distribution, stage, cause, fix,
                            None if isinstance(exc, str) else type(exc))
    plugin_state().problems.append(problem)
    if strict():
        cls = PluginVersionError if stage == "API version check" else PluginError
        err = cls(problem.message(), plugin=info.name)
        if isinstance(exc, BaseException):
            err.__cause__ = exc
        pending = _deferred.get()
        if raise_problems.get():  # (hand registration: the caller fixes it there and then)
            raise err
        if pending is None:
            raise _remembered(err)
        pending.append(err)
        return
    warnings.warn(problem.message(), TensorplugPluginWarning, stacklevel=4)


@contextlib.contextmanager
def deferring_strict_errors() -> Iterator[None]:
    """Run a loading phase to its end, then raise the strict-mode errors it met (if any)."""
    pending: list[PluginError] = []
    token = _deferred.set(pending)
    try:
        yield
    finally:
        _deferred.reset(token)
    if len(pending) == 1:
        raise _remembered(pending[0])
    if pending:
        cls = PluginVersionError if all(isinstance(e, PluginVersionError) for e in pending) else PluginError
        err = cls(f"{len(pending)} tensorplug plugins failed to load:\n"
                  + "\n".join(f"- {e}" for e in pending), plugin=pending[0].plugin)
        err.__cause__ = pending[0].__cause__
        raise _remembered(err)


def _remembered(err: PluginError) -> PluginError:
    """`err`, kept on the runtime: in strict mode every later use of tensorplug raises it again
    (``strict_error``), rather than going on with what loaded."""
    plugin_state().strict_error = err
    return err


def report_backend_failure(backend_name: str, exc: BaseException) -> None:
    """A backend failed to start (its factory raised): in strict mode a PluginError naming the
    plugin that registered it, raised now and at every later use; else nothing (the caller
    warns and tries the next backend)."""
    if not strict():
        return
    owner = current().backends.registration(backend_name)
    name = owner.source if owner is not None else "unknown"
    info = plugin_state().plugins.get(name) or PluginInfo(name)
    report(info, f"starting backend '{backend_name}'", exc,
            "Fix the backend's plugin or its dependencies, or choose another backend.")
