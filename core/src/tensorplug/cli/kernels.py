"""``tensorplug kernels``: the kernel x backend matrix, with gradient, JVP-rule, batching-rule and
ONNX-lowering columns and who provides each cell; ``--missing`` lists the gaps, ``--needs`` the kernels each
gradient needs (and which of them each backend lacks), ``--backend NAME`` shows one backend.

Every backend is started first (that is when plugins register its kernels); one that fails
to start is shown as such."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tensorplug.backends.lifecycle import list_backends
from tensorplug.cli import _inventory
from tensorplug.core.runtime import current
from tensorplug.plugins.manager import plugin_problems
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.registry.specs import list_kernel_specs
from tensorplug.testing.needs import gradient_needs, minimum_grad_kernels, unmet_gradient_needs
from tensorplug.tools.text_tables import heading, plural, table

__all__ = ["add_parser", "run", "kernel_cell", "gradient_cell", "jvp_cell", "batching_cell", "onnx_cell",
           "gaps", "needs_view"]

OWN = "yes"  # a cell filled by the plugin that registered the backend itself
MISSING = "-"


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "kernels", help="the kernel x backend matrix: who provides each kernel and gradient",
        description="Start every backend and show, for each kernel spec, which backends have a "
                    "kernel for it (and which plugin registered it) and where its gradient comes "
                    "from.",
    )
    p.add_argument("--backend", metavar="NAME", default=None, help="show only this backend's column")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--missing", action="store_true",
                      help="list only the gaps (kernels a backend lacks, gradients a differentiable "
                           "kernel lacks); the exit status is 1 if there are any")
    view.add_argument("--needs", action="store_true",
                      help="for each kernel with a gradient, the kernels its gradient needs to first "
                           "order (found by running it on shapes and dtypes alone) and which of them each "
                           "backend lacks; the exit status is 1 if a backend lacks any for a kernel it has")
    p.set_defaults(handler=run)


def kernel_cell(kernel: str, backend: str) -> str:
    """Who provides `kernel` on `backend`: OWN when the backend's own plugin does, else the
    registrant, with the registrants it replaced; MISSING when nobody does."""
    stack = current().kernels.stacks.get((kernel, backend))
    if not stack:
        return MISSING
    owner = current().backends.registration(backend)
    active = stack[-1]
    text = OWN if owner is not None and active.source == owner.source else active.source
    replaced = sorted({r.source for r in stack[:-1]} - {active.source})
    if replaced:
        text += f" (over {', '.join(replaced)})"
    return text


def _rule_source(stack: list[Any]) -> str:
    """Who registered the active rule of a stack, with the registrants it replaced."""
    active = stack[-1]
    text = "core" if active.source == CORE_SOURCE else active.source
    replaced = sorted({"core" if r.source == CORE_SOURCE else r.source for r in stack[:-1]})
    if replaced:
        text += f" (over {', '.join(replaced)})"
    return text


def gradient_cell(kernel: str, differentiable: bool) -> str:
    stack = current().gradients.stacks.get(kernel)
    if not stack:
        return "MISSING" if differentiable else "n/a (not differentiable)"
    return _rule_source(stack)


def jvp_cell(kernel: str, differentiable: bool) -> str:
    """Where forward mode gets the kernel's JVP: a rule's registrant, or its gradient transposed."""
    stack = current().jvps.stacks.get(kernel)
    if stack:
        return _rule_source(stack)
    if not differentiable:
        return "n/a"
    return "from gradient" if kernel in current().gradients.active else "MISSING"


def batching_cell(kernel: str, has_inputs: bool = True) -> str:
    """Where tp.vmap gets the kernel's batching rule: a rule's registrant, or a loop (none
    needed by a kernel without tensor inputs: it runs once, shared by every example)."""
    stack = current().batching.stacks.get(kernel)
    if stack:
        return _rule_source(stack)
    return "loop" if has_inputs else "n/a"


def onnx_cell(kernel: str) -> str:
    """Who registered the kernel's ONNX lowering (tp.export.onnx), or MISSING."""
    stack = current().onnx_lowerings.stacks.get(kernel)
    return _rule_source(stack) if stack else MISSING


def gaps(backends: list[str]) -> list[str]:
    """One line per gap: a kernel missing on one of `backends`, a gradient missing."""
    lines = []
    for spec in list_kernel_specs():
        for b in backends:
            if (spec.name, b) not in current().kernels.active:
                lines.append(f"kernel {spec.name} on {b}: no kernel registered")
        if spec.differentiable and spec.name not in current().gradients.active:
            lines.append(f"gradient of {spec.name}: none registered (its spec says it is differentiable)")
    return lines


def needs_view(backends: list[str]) -> list[str]:
    """Print the --needs table; return one line per backend lacking kernels its gradients need."""
    needs = gradient_needs()
    unmet = {b: {n.kernel: missing for n, missing in unmet_gradient_needs(b, needs)} for b in backends}

    def lacks(kernel: str, backend: str) -> str:
        if (kernel, backend) not in current().kernels.active:
            return "(no kernel)"
        return ", ".join(unmet[backend].get(kernel, ())) or MISSING

    rows = [(n.kernel, gradient_cell(n.kernel, True), ", ".join(n.needs) or "nothing",
             *(lacks(n.kernel, b) for b in backends)) for n in needs.values()]
    print(heading(f"Gradient needs: {plural(len(needs), 'gradient')}, run on shapes and dtypes alone"))
    print(table(("kernel", "gradient", "first-order needs", *(f"{b} lacks" for b in backends)), rows))
    print(f"\n  '{MISSING}': the backend has every kernel the gradient needs; '(no kernel)': it has no "
          "kernel for the kernel itself.")
    print("  First-order needs are what the gradient itself dispatches. Higher derivatives also need what\n"
          "  the gradients of those kernels need, and so does the conformance kit, which checks gradients\n"
          "  to order 2 and forward mode (tp.jvp, through JVP rules): its summary line 'gradients need,\n"
          "  backend lacks' names every kernel they need.")
    print(f"  tp.grad needs at least: {', '.join(minimum_grad_kernels())}.")
    for n in needs.values():
        if n.untraced:
            print(f"  gradient of {n.kernel} (by {n.source}) could not be run abstractly, so its needs "
                  f"may be incomplete: {n.untraced}")
    found = []
    for b in backends:
        lacking = sorted({k for missing in unmet[b].values() for k in missing})
        if lacking:
            found.append(f"backend '{b}' lacks {', '.join(lacking)}: tp.grad fails there through "
                         f"{', '.join(sorted(unmet[b]))}")
    if found:
        print("\n" + "\n".join(f"  {line}" for line in found))
    return found


def run(args: argparse.Namespace) -> int:
    _inventory.load_quietly()
    names = list_backends()
    if args.backend is not None:
        if args.backend not in names:
            print(f"tensorplug kernels: no backend named '{args.backend}'; registered backends: "
                  f"{', '.join(names) or 'none'}.", file=sys.stderr)
            return 2
        names = [args.backend]
    started = _inventory.start_backends(names)
    working = [b for b in names if started[b] is None]
    specs = list_kernel_specs()

    if args.needs:
        found = needs_view(working)
    elif args.missing:
        found = gaps(working)
        if found:
            print(heading(f"Gaps ({len(found)})"))
            print("\n".join(f"  {line}" for line in found))
        else:
            where = " and ".join([", ".join(working[:-1]), working[-1]] if len(working) > 1 else working)
            print(f"No gaps: every kernel spec has a kernel on {where or 'no backend'}, and every "
                  "differentiable one a gradient.")
    else:
        rows = [(s.name, gradient_cell(s.name, s.differentiable), jvp_cell(s.name, s.differentiable),
                 batching_cell(s.name, bool(s.inputs)), onnx_cell(s.name),
                 *(kernel_cell(s.name, b) if started[b] is None else "?" for b in names)) for s in specs]
        print(heading(f"Kernels: {plural(len(specs), 'kernel spec')} x {plural(len(names), 'backend')}"))
        print(table(("kernel", "gradient", "JVP", "batching", "ONNX", *names), rows))
        backends = current().backends
        owners = [f"{b}: {_inventory.label(reg.source)}"
                  for b in names if (reg := backends.registration(b)) is not None]
        print(f"\n  '{OWN}': registered by the backend's own plugin ({'; '.join(owners)}); "
              f"'{MISSING}': no kernel; '(over X)': replaces X's registration.\n"
              "  JVP 'from gradient': forward mode transposes the gradient (correct, slower than a "
              "rule); batching 'loop': tp.vmap runs the kernel once per example ('n/a': no tensor inputs, "
              "one run serves every example); ONNX: who lowers it for tp.export.onnx ('-': it cannot be "
              "exported).")
        found = []
    for b in names:
        if started[b] is not None:
            print(f"\n  backend '{b}' failed to start ('?' above): {started[b]}")
    if plugin_problems():
        print(f"\n  {plural(len(plugin_problems()), 'plugin problem')}: run `tensorplug doctor`.")
    return 1 if found else 0
