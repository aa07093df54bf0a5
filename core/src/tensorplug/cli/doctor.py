"""``tensorplug doctor``: every plugin problem (import failure, version mismatch, conflict,
invalid hooks, a hook that raised or registered something wrong), every backend that fails to
start, every gradient in force that needs kernels a started backend lacks (for a kernel that
backend has), and the overrides in force, each with its cause and fix.

The exit status is 1 if something is broken (a problem, a backend that does not start, a gradient
that cannot run on a backend), 0 if there are only overrides, which are deliberate."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

from tensorplug.cli import _inventory
from tensorplug.core.runtime import current
from tensorplug.errors import KernelSpecNotFoundError, RegistrationConflictError, RegistrationError
from tensorplug.plugins.manager import ENV_DISABLE, ENV_STRICT, PluginProblem, list_plugins, plugin_problems
from tensorplug.plugins.problems import diagnosing, strict_requested
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.testing.needs import gradient_needs, unmet_gradient_needs
from tensorplug.tools.text_tables import heading, plural

__all__ = ["add_parser", "run", "Finding", "findings", "problem_kind"]


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "doctor", help="plugin problems and overrides in force, with causes and fixes",
        description="Load every plugin and start every backend, then list each plugin problem "
                    "each backend that fails to start and each gradient needing kernels a "
                    "backend lacks (exit status 1), and each kernel, "
                    "gradient, spec, op or backend whose active registration replaced another "
                    "one (an override: listed, but not an error).",
    )
    p.set_defaults(handler=run)


@dataclass(frozen=True)
class Finding:
    """One thing the doctor reports: what kind, about whom, why, and what to do."""

    kind: str
    subject: str
    cause: str
    fix: str
    broken: bool


def problem_kind(problem: PluginProblem) -> str:
    """A short name for what went wrong, from the stage and the exception type."""
    if problem.stage == "import":
        return "import failure"
    if problem.stage == "API version check":
        return "version mismatch"
    if problem.stage == "discovery":
        return "name clash"
    if problem.stage.startswith("registration with pluggy"):
        return "invalid hooks"
    err = problem.error_type
    if err is not None and issubclass(err, RegistrationConflictError):
        return "conflict"
    if err is not None and issubclass(err, KernelSpecNotFoundError):
        return "unknown kernel name"
    if err is not None and issubclass(err, RegistrationError):
        return "bad registration"
    return "hook raised"


def _plugin_subject(problem: PluginProblem) -> str:
    return f"plugin '{_inventory.label(problem.plugin)}' at {problem.stage}"


def _override_finding(o: _inventory.Override) -> Finding:
    replaced = [r.source for r in o.replaced]
    who = o.active.source
    if who == CORE_SOURCE or who == _inventory.USER_SOURCE:
        undo = f"unregister it (registered by {who})"
    else:
        dist = next((p.distribution for p in list_plugins() if p.name == who), None)
        undo = (f"uninstall {dist} or call " if dist else "call ") + (
            f"tensorplug.extend.unregister_plugin({who!r})")
    return Finding(
        kind="override", subject=o.describe(),
        cause=f"'{_inventory.label(who)}' registered it with {o.how}, so it is used instead of "
              f"the registration of {', '.join(repr(s) for s in replaced)}",
        fix=f"Nothing to do if that is what you want. To get {replaced[-1]}'s back, {undo}.",
        broken=False,
    )


def findings(started: dict[str, str | None]) -> list[Finding]:
    """Problems first (in the order they happened), then backends that failed, then overrides."""
    out = [Finding(problem_kind(p), _plugin_subject(p), p.cause, p.fix, True) for p in plugin_problems()]
    for name, error in started.items():
        if error is not None:
            reg = current().backends.registration(name)
            source = _inventory.label(reg.source) if reg else "?"
            out.append(Finding(
                "backend failed to start", f"backend '{name}' (registered by {source})", error,
                f"Install what backend '{name}' needs (see its distribution's README), or "
                f"uninstall {source}; tensorplug uses the other backends.", True))
    if not started:
        disabled = os.environ.get(ENV_DISABLE, "").lower() not in ("", "0", "false", "no")
        out.append(Finding(
            "no backend", "tensorplug has no backend, so no op can run",
            f"plugin autoload is disabled ({ENV_DISABLE})" if disabled else
            "no installed plugin registers a backend",
            f"Unset {ENV_DISABLE}, or register a backend by hand." if disabled else
            "Install one, e.g. `pip install tensorplug-backend-numpy`.", True))
    out.extend(_needs_findings([b for b, e in started.items() if e is None]))
    out.extend(_override_finding(o) for o in _inventory.overrides())
    return out


def _needs_findings(backends: list[str]) -> list[Finding]:
    """A gradient in force (the core's or an override) needing kernels a started backend lacks,
    for a kernel that backend has: tp.grad through it fails there."""
    if not backends:
        return []
    needs = gradient_needs()
    out = []
    for backend in backends:
        for n, missing in unmet_gradient_needs(backend, needs):
            kernels = ", ".join(missing)
            spec = current().specs.registration(n.kernel)
            fix = (f"Register {kernels} for '{backend}' (KernelConfig(name, '{backend}', kernel_func) from "
                   "its plugin's tensorplug_kernels hook)")
            if spec is None or n.source != spec.source:
                fix += (f", or drop the override: tensorplug.extend.unregister_gradient('{n.kernel}', "
                        f"'{n.source}') (or uninstall its plugin)")
            out.append(Finding(
                "gradient needs missing kernels",
                f"gradient of {n.kernel} (registered by {_inventory.label(n.source)}) on backend '{backend}'",
                f"it runs {kernels}, which backend '{backend}' has no kernel for (found by running it "
                f"on shapes and dtypes alone), so tp.grad through {n.kernel} fails there",
                fix + ".", True))
    return out


def _render(f: Finding) -> str:
    return f"  [{f.kind}] {f.subject}\n      cause: {f.cause}\n      fix:   {f.fix}"


def run(args: argparse.Namespace) -> int:
    with diagnosing():  # (strict mode or not: every problem recorded and listed, none raised)
        _inventory.load_quietly()
        started = _inventory.start_backends()
        found = findings(started)
        return _report(started, found)


def _report(started: dict[str, str | None], found: list[Finding]) -> int:
    broken = [f for f in found if f.broken]
    overrides = [f for f in found if not f.broken]
    print(f"tensorplug doctor: {plural(len(broken), 'problem')}, "
          f"{plural(len(overrides), 'override')} in force")
    env = _inventory.environment()
    if env:
        print("environment: " + ", ".join(env))
    if strict_requested() and broken:
        print(f"strict mode ({ENV_STRICT}) turns plugin problems into errors: without "
              "`tensorplug doctor`, loading the plugins raises PluginError.")
    if broken:
        print()
        print(heading("Problems"))
        print("\n".join(_render(f) for f in broken))
    if overrides:
        print()
        print(heading("Overrides in force"))
        print("\n".join(_render(f) for f in overrides))
    active = [p for p in list_plugins() if p.active]
    ok = [b for b, e in started.items() if e is None]
    print()
    print(f"{plural(len(active), 'plugin')} active; {plural(len(ok), 'backend')} started"
          + (f" ({', '.join(ok)})" if ok else "") + ".")
    if broken:
        print("Something is broken: see the fixes above.")
        return 1
    print("Nothing is broken.")
    return 0
