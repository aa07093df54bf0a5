"""The coverage a conformance run establishes: what the backend provides (a plan made from the
registries), what the tests found (one record per test), and the closing summary by name."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import cast

from tensorplug.backends.lifecycle import start_backend
from tensorplug.core.runtime import current
from tensorplug.errors import TensorplugError
from tensorplug.plugins.manager import load_plugins
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.registry.generic_kernels import GENERIC_SOURCE
from tensorplug.registry.specs import list_kernel_specs
from tensorplug.testing.dtype_probe import held_dtypes
from tensorplug.testing.selection import Selection

__all__ = ["Plan", "make_plan", "Record", "Coverage", "parse_property"]


@dataclass(frozen=True)
class Plan:
    """The kernel specs a backend is held to: every core spec, and the specs plugins declare
    for which this backend has a kernel (others are optional: listed, not required)."""

    backend: str
    required: tuple[str, ...]
    differentiable: frozenset[str]
    implemented: frozenset[str]
    optional_missing: tuple[str, ...] = ()
    start_error: str = ""
    #: what the summary says of the backend's dtypes (``HeldDtypes.lines``): shown where the
    #: backend declares none or holds fewer than all
    dtypes: tuple[str, ...] = ()
    #: the core's generic kernels the backend runs (control flow over its own kernels), not
    #: registered by it: not checked here (the core's tests check them); listed in the summary
    generic: tuple[str, ...] = ()

    def checked(self, selection: Selection) -> list[str]:
        return [n for n in self.required if selection.selects(n)]


def make_plan(backend: str) -> Plan:
    """Load the plugins, start `backend` (its kernels register then) and read the registries."""
    load_plugins()
    error = ""
    try:
        start_backend(backend)
    except TensorplugError as exc:
        error = str(exc)
    keys = cast("list[tuple[str, str]]", list(current().kernels.active))
    generic = tuple(sorted(k for k, b in keys if b == backend and _registrant(k, b) == GENERIC_SOURCE))
    implemented = frozenset(k for k, b in keys if b == backend and k not in generic)
    specs = list_kernel_specs()

    def is_core(name: str) -> bool:
        reg = current().specs.registration(name)
        return reg is not None and reg.source == CORE_SOURCE

    required = tuple(s.name for s in specs
                     if (is_core(s.name) or s.name in implemented) and s.name not in generic)
    optional = tuple(s.name for s in specs if s.name not in required)
    differentiable = frozenset(s.name for s in specs if s.differentiable)
    instance = current().instances.get(backend)
    held = held_dtypes(instance) if instance is not None else None
    dtypes = tuple(held.lines()) if held is not None and (held.skipped or not held.declared) else ()
    return Plan(backend, required, differentiable, implemented, optional, error, dtypes, generic)


def _registrant(kernel: str, backend: str) -> str | None:
    reg = current().kernels.registration((kernel, backend))
    return None if reg is None else reg.source


@dataclass(frozen=True)
class Record:
    """One conformance test's outcome ('passed', 'failed', 'xfailed'), opcheck's status
    ('passed', 'failed', 'missing', 'blocked'), reference kind ('values', 'properties', 'none')
    and the kernels a blocked gradient needs."""

    outcome: str
    status: str = ""
    reference: str = ""
    blocked_by: tuple[str, ...] = ()


@dataclass
class Coverage:
    """Records of a run, and the summary they make against a plan and a selection."""

    records: dict[tuple[str, str], Record] = field(default_factory=dict)

    def record(self, check: str, kernel: str, record: Record) -> None:
        self.records[(check, kernel)] = record

    def categories(self, plan: Plan, selection: Selection) -> dict[str, list[str]]:
        """Kernel names by category: passing, failing (with the failing part), missing,
        excluded (with the reason), not selected (by the include patterns), not run."""
        out: dict[str, list[str]] = {k: [] for k in _CATEGORIES}
        for name in plan.required:
            if not selection.included(name):
                out["not selected"].append(name)
                continue
            why = selection.excluded_by(name)
            if why is not None:
                out["excluded"].append(f"{name} ({why})")
                continue
            kernel, grad, batch, lowered = (self.records.get((c, name))
                                            for c in ("kernel", "gradient", "batching", "onnx"))
            found = [r for r in (kernel, grad, batch, lowered) if r is not None]
            if not found:
                out["not run"].append(name)
            elif any(r.status == "missing" for r in found):
                out["missing"].append(name)
            elif any(r.outcome != "passed" and r.status != "blocked" for r in found):
                parts = [p for p, r in (("kernel", kernel), ("gradient", grad), ("batching", batch),
                                        ("onnx", lowered))
                         if r and r.outcome != "passed" and r.status != "blocked"]
                out["failing"].append(f"{name} ({', '.join(parts)})")
            elif grad is not None and grad.status == "blocked":
                out["blocked"].append(f"{name} (gradient needs {', '.join(grad.blocked_by)})")
            else:
                out["passing"].append(name)
        return out

    def summary(self, plan: Plan, selection: Selection, rerun: str, width: int = 100) -> list[str]:
        """The closing summary: counts, then the kernels of each category by name."""
        cats = self.categories(plan, selection)
        implemented = sum(1 for k in plan.required if k in plan.implemented)
        counts = ", ".join(f"{len(cats[c])} {c}" for c in _CATEGORIES if cats[c] or c in _ALWAYS)
        lines = [f"backend '{plan.backend}': {len(plan.required)} kernel specs, {implemented} implemented; "
                 f"{counts}"]
        if plan.start_error:
            lines.append(f"the backend failed to start: {plan.start_error}")
        lines += [_wrap("dtypes: ", line, width) for line in plan.dtypes]
        if plan.generic:
            why = ("(the core's, run with this backend's kernels: checked by tensorplug's own tests; "
                   "register yours to have them checked here)")
            lines.append(_wrap(f"generic ({len(plan.generic)}): ", f"{', '.join(plan.generic)} {why}", width))
        checked = len(plan.required) - len(cats["not selected"]) - len(cats["excluded"])
        for cat in _CATEGORIES:
            names = cats[cat]
            if not names:
                continue
            if cat == "not selected":
                lines.append(f"not selected ({len(names)}): not matching {selection.describe_include()}")
                continue
            if cat == "excluded":
                for why, group in _by_reason(names).items():
                    lines.append(_wrap(f"excluded ({len(group)}, {why}): ", ", ".join(group), width))
                continue
            everything = cat == "passing" and len(names) == checked and len(names) > 10
            lines.append(_wrap(f"{cat} ({len(names)}): ", "every checked kernel" if everything
                               else ", ".join(names), width))
        grads = [(k, r) for (c, k), r in self.records.items() if c == "gradient" and r.status != "missing"]
        if grads:
            bad = sorted(k for k, r in grads if r.outcome != "passed" and r.status != "blocked")
            blocked = sum(1 for k, r in grads if r.status == "blocked")
            lines.append(_wrap(f"gradients: {len(grads)} checked, {len(grads) - len(bad) - blocked} passing, "
                               f"{len(bad)} failing, {blocked} blocked",
                               (": failing " + ", ".join(bad)) if bad else "", width))
        lowerings = [(k, r) for (c, k), r in self.records.items() if c == "onnx"]
        if lowerings:
            bad = sorted(k for k, r in lowerings if r.outcome != "passed")
            lines.append(_wrap(f"onnx lowerings: {len(lowerings)} checked in onnxruntime, "
                               f"{len(lowerings) - len(bad)} passing, {len(bad)} failing",
                               (": failing " + ", ".join(bad)) if bad else "", width))
        lacking = sorted({k for (c, _), r in self.records.items() if c == "gradient" for k in r.blocked_by})
        if lacking:
            lines.append(_wrap(f"gradients need, backend lacks ({len(lacking)}): ", ", ".join(lacking),
                               width))
        no_ref = sorted({k for (c, k), r in self.records.items() if r.reference == "none"})
        if no_ref:
            lines.append(_wrap("no reference values (shapes, dtypes and gradient checked only): ",
                               ", ".join(no_ref), width))
        if plan.optional_missing:
            lines.append(_wrap("plugin kernel specs this backend does not provide (optional): ",
                               ", ".join(plan.optional_missing), width))
        unused = selection.unused(list(plan.required))
        if unused:
            lines.append(f"note: pattern(s) {unused} match no kernel spec")
        if cats["failing"] or cats["missing"] or cats["blocked"]:
            lines.append(f"rerun one kernel: {rerun}")
        return lines


_CATEGORIES = ("passing", "failing", "blocked", "missing", "excluded", "not selected", "not run")
_ALWAYS = ("passing", "failing", "missing", "excluded")


def _by_reason(entries: list[str]) -> dict[str, list[str]]:
    """'Name (why)' entries grouped by why."""
    out: dict[str, list[str]] = {}
    for entry in entries:
        name, why = entry.split(" (", 1)
        out.setdefault(why[:-1], []).append(name)
    return out


def _wrap(head: str, body: str, width: int) -> str:
    return textwrap.fill(head + body, width=max(width, 40), subsequent_indent="    ",
                         break_on_hyphens=False)


def parse_property(value: str) -> tuple[str, str, Record] | None:
    """(check, kernel, partial record) from the user property a conformance test leaves:
    ``check|kernel|status|reference|blocked,by``."""
    parts = value.split("|")
    if len(parts) != 5:
        return None
    check, kernel, status, reference, blocked = parts
    return check, kernel, Record("", status, reference, tuple(b for b in blocked.split(",") if b))
