"""``tensorplug info``: the version, the backends and the plugins, with what each plugin
contributed. Starts no backend (so kernels show only for backends already started; the
``kernels`` subcommand starts them all)."""

from __future__ import annotations

import argparse
import platform
from collections import defaultdict
from typing import Any

from tensorplug.backends.held_dtypes import describe_dtypes
from tensorplug.backends.lifecycle import backend_info
from tensorplug.cli import _inventory
from tensorplug.core.version import API_VERSION, __version__
from tensorplug.plugins.manager import PluginInfo, contributions, list_plugins, plugin_problems
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.tools.text_tables import heading, plural, table

__all__ = ["add_parser", "run", "summarize"]

_LISTED = 6  # a kind of contribution with more entries than this is shown as a count


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "info", help="version, backends and plugins (with what each one contributed)",
        description="Show tensorplug's version, the registered backends (priority, started or "
                    "not, active) and the plugins found through the 'tensorplug' entry point "
                    "group, with their distributions, versions and what each registered. "
                    "Starts no backend.",
    )
    p.set_defaults(handler=run)


def summarize(parts: dict[str, list[str]], overridden: set[str] | None = None) -> str:
    """'kernel specs: Erf; gradients: Erf, Round (override); kernels: 65 on numpy' from a
    contributions() dict; `overridden` holds the 'kind/name' entries that replaced another."""
    overridden = overridden or set()
    out = []
    for kind, names in parts.items():
        if not names:
            continue
        if kind == "kernels":
            by_backend: dict[str, int] = defaultdict(int)
            for name in names:
                by_backend[name.rsplit("/", 1)[1]] += 1
            out.append("kernels: " + ", ".join(f"{n} on {b}" for b, n in sorted(by_backend.items())))
        elif len(names) > _LISTED:
            out.append(f"{kind}: {len(names)}")
        else:
            shown = [f"{n} (override)" if f"{kind}/{n}" in overridden else n for n in names]
            out.append(f"{kind}: {', '.join(shown)}")
    return "; ".join(out) or "nothing"


def _status(info: PluginInfo, failed: set[str]) -> str:
    if info.active:
        return "active" if info.name not in failed else "active, with problems"
    return "failed" if info.name in failed else "inactive"


def run(args: argparse.Namespace) -> int:
    strict_error = _inventory.load_quietly()
    print(f"tensorplug {__version__} (core API version {API_VERSION}), Python {platform.python_version()}")
    env = _inventory.environment()
    if env:
        print("environment: " + ", ".join(env))
    print()
    print(_backends())
    print()
    print(_plugins())
    problems = plugin_problems()
    print()
    if problems or strict_error is not None:
        print(f"{plural(len(problems), 'plugin problem')}: run `tensorplug doctor` for causes and fixes.")
        return 0
    print("No plugin problems (`tensorplug doctor` also lists the overrides in force).")
    return 0


def _backends() -> str:
    rows = []
    default = _inventory.default_backend()
    for b in backend_info():
        active = "yes" if b["active"] else ("default" if b["name"] == default else "no")
        rows.append((b["name"], str(b["priority"]), "yes" if b["started"] else "no", active,
                     _inventory.label(b["source"]) if b["source"] else "?", describe_dtypes(b["dtypes"])))
    if not rows:
        return heading("Backends") + "\n  none: install one, e.g. `pip install tensorplug-backend-numpy`"
    return "\n".join([
        heading("Backends (highest priority first)"),
        table(("backend", "priority", "started", "active", "registered by", "dtypes"), rows),
        "  ('default': the one tensorplug will start first; a backend starts on first use; dtypes:\n"
        "  those it holds, declared in its BackendConfig(dtypes=...); the conformance kit probes\n"
        "  an undeclared backend's)",
    ])


def _plugins() -> str:
    failed = {p.plugin for p in plugin_problems()}
    rules = ("gradient", "JVP rule", "batching rule")
    overridden = {f"{o.kind}s/{o.key}" for o in _inventory.overrides(rules)}
    rows = []
    for info in sorted(list_plugins(), key=lambda i: i.name):
        contributed = summarize(contributions(info.name), overridden) if info.active else "-"
        rows.append((info.name, info.distribution or f"({info.origin})", info.version or "-",
                     _status(info, failed), contributed))
    core = summarize(contributions(CORE_SOURCE))
    lines = [heading("Plugins")]
    if rows:
        lines.append(table(("plugin", "distribution", "version", "status", "contributed"), rows))
    else:
        lines.append("  none found in the 'tensorplug' entry point group")
    lines.append(f"  tensorplug-core itself: {core}")
    lines.append("  (plugins register a backend's kernels when it starts: `tensorplug kernels` starts them)")
    return "\n".join(lines)
