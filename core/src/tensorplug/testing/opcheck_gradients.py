"""The gradient part of opcheck: is a gradient registered (unless the spec says the kernel is
not differentiable), and does it agree with finite differences on a few of the reference's
cases (float inputs only; float64 where the backend has it, else float32 with looser
tolerances)?"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import Any

from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import DType, float32, float64, is_floating_numpy
from tensorplug.errors import KernelNotFoundError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.kernels.run import run_kernel
from tensorplug.registry.gradients import GradConfig, find_gradient, override_gradient
from tensorplug.testing.finite_differences import check_gradients, run_gradients
from tensorplug.testing.gradient_cases import MAX_GRADIENT_CASES, gradient_cases
from tensorplug.testing.inputs import Case
from tensorplug.testing.needs import needs_of
from tensorplug.testing.result import OpCheckResult
from tensorplug.transforms.abstract import abstract_backend

__all__ = ["check_gradient", "gradient_cases", "GRADIENT_TOLERANCES", "MAX_GRADIENT_CASES"]

#: check_gradients options per dtype: float32 finite differences need a wide step, and then
#: agree with the analytic gradient to about 1e-3.
GRADIENT_TOLERANCES: dict[DType, dict[str, float]] = {
    float64: {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-5},
    float32: {"eps": 1e-3, "atol": 2e-2, "rtol": 2e-2},
}
def _output_count(spec: KernelSpec, case: Case) -> int:
    """How many outputs the kernel gives for `case` (its spec's, or its rule's for ``outputs=()``)."""
    return len(spec.outputs) or len(spec.check(case.infos(), spec.normalize_attrs(case.attrs)))


def _kernel_function(spec: KernelSpec, attrs: Any, output: int) -> Any:
    def f(*args: Any) -> Tensor:
        inputs = {spec.inputs[0]: list(args)} if spec.variadic else dict(zip(spec.inputs, args))
        out = run_kernel(spec.name, inputs, attrs)
        return out[output] if isinstance(out, tuple) else out
    which = f" (output '{spec.output_names(output + 1)[output]}')" if len(spec.outputs) != 1 else ""
    f.__name__ = f"kernel {spec.name}{which}"
    return f


def check_gradient(spec: KernelSpec, cases: Sequence[Case], has_float64: bool, result: OpCheckResult,
                   order: int = 1) -> None:
    """Record in `result` whether the gradient of `spec`'s kernel is there and right."""
    if not spec.differentiable:
        result.gradient = "not differentiable (the spec says so)"
        return
    config = _gradient_to_check(spec, result)
    if config is None:
        result.gradient = "missing"
        result.add("gradient", "", f"no gradient is registered for '{spec.name}', and its spec says it is "
                   "differentiable. Register one with tensorplug.extend.register_gradient(GradConfig(...)), "
                   "or declare the spec differentiable=False.")
        return
    dtype = float64 if has_float64 else float32
    if order > 1 and dtype is float32:
        result.notes.append(f"gradients checked to order 1 only: order {order} needs float64")
        order = 1
    picked = gradient_cases(spec, cases, dtype)
    if not picked:
        result.gradient = f"not checked (no small {dtype.name} case to check it on)"
        return
    in_force = find_gradient(spec.name)
    if in_force is not None and in_force is not config:
        _check_override_needs(spec, in_force, result)
    with override_gradient(config) if config is not in_force else contextlib.nullcontext():
        if _check_needs(spec, picked, gradient_cases(spec, cases, dtype, len(cases)), dtype, order, result):
            result.gradient = "blocked (not run: the backend lacks kernels it needs)"
            return
        _check_cases(spec, picked, dtype, order, result)
    result.gradient = (f"checked on {result.gradient_cases} case(s) in {dtype.name}"
                       + (f", to order {order}" if order > 1 else ""))


def _gradient_to_check(spec: KernelSpec, result: OpCheckResult) -> GradConfig | None:
    """The gradient a backend is held to (see ``rule_to_check``)."""
    return rule_to_check(spec, result, "gradients", find_gradient, "gradient")


def rule_to_check(spec: KernelSpec, result: OpCheckResult, attribute: str, find: Any, rule: str) -> Any:
    """The rule (gradient or JVP rule, in the runtime's table `attribute`) a backend is held
    to: a scoped override in force in this thread; else the one registered by the backend's own
    plugin; else the one registered by whoever declared the kernel spec (the core's for core
    kernels); else the one in force. Another plugin's override (a straight-through estimator,
    say) is a deliberate change that finite differences need not agree with: it is noted, not
    checked."""
    table = getattr(current(), attribute)
    active = find(spec.name)
    if active is None or active is not table.active.get(spec.name):
        return active
    stack = table.stacks.get(spec.name, [])
    backend_reg = current().backends.registration(result.backend)
    spec_reg = current().specs.registration(spec.name)
    for owner in (backend_reg.source if backend_reg else None, spec_reg.source if spec_reg else None):
        mine = [r for r in stack if r.source == owner]
        if mine:
            chosen = mine[-1]
            if chosen.config is not active:
                in_force = stack[-1].source
                result.notes.append(f"the {rule} of '{spec.name}' in force is an override by '{in_force}'; "
                                    f"the kit checked the one registered by '{chosen.source}'")
            return chosen.config
    return active


def _check_needs(spec: KernelSpec, picked: Sequence[Case], every: Sequence[Case], dtype: DType,
                 order: int, result: OpCheckResult) -> bool:
    """Run the gradient check's gradients abstractly (``run_gradients`` on the abstract
    backend: to `order` on the `picked` cases, to order 1 on `every` other small case, whose
    shapes may take other paths) to learn every kernel they dispatch; if the backend lacks
    any, record them all as one 'blocked' problem and return True. A gradient that cannot run
    abstractly is noted and left to the real check."""
    have = {k for k, b in current().kernels.active if b == result.backend}
    chosen = {id(c) for c in picked}
    runs = [(c, order) for c in picked] + [(c, 1) for c in every if id(c) not in chosen]
    try:
        with abstract_backend() as abstract:
            for case, up_to in runs:
                argnums = [i for i, a in enumerate(case.inputs) if is_floating_numpy(a.dtype)]
                for k in range(_output_count(spec, case)):
                    run_gradients(_kernel_function(spec, case.attrs, k), *case.inputs, argnums=argnums,
                                  order=up_to, dtype=dtype)
    except Exception as exc:  # values matter to it, or it is broken: the real check says which
        result.notes.append(f"the gradient check of '{spec.name}' could not be run abstractly (on shapes "
                            f"and dtypes alone) to find the kernels it needs: {type(exc).__name__}: {exc}")
        return False
    missing = sorted(abstract.called - have)
    if not missing:
        return False
    result.blocked_by.extend(k for k in missing if k not in result.blocked_by)
    to = f" to order {order}" if order > 1 else ""
    result.add("blocked", "", f"checking the gradient of '{spec.name}'{to} needs kernel(s) "
               f"{', '.join(missing)}, which backend '{result.backend}' does not have: tp.grad through "
               f"'{spec.name}' (or its higher derivatives) fails there until it has them")
    return True


def _check_override_needs(spec: KernelSpec, in_force: GradConfig, result: OpCheckResult) -> None:
    """The gradient in force is not the one the kit checks (another plugin's override): it is
    not held to finite differences, but tp.grad uses it, so it must find its kernels."""
    needs = needs_of(spec.name, in_force)
    missing = needs.missing_on(result.backend)
    if missing:
        result.blocked_by.extend(k for k in missing if k not in result.blocked_by)
        result.add("blocked", "", f"the gradient of '{spec.name}' in force, registered by '{needs.source}', "
                   f"needs kernel(s) {', '.join(missing)}, which backend '{result.backend}' does not have: "
                   f"tp.grad through '{spec.name}' fails there. Register them for '{result.backend}', or "
                   f"unregister that gradient (tensorplug.extend.unregister_gradient('{spec.name}', "
                   f"'{needs.source}'))")
    elif needs.untraced:
        result.notes.append(f"the gradient of '{spec.name}' in force, registered by '{needs.source}', could "
                            f"not be run abstractly to find the kernels it needs: {needs.untraced}")


def _check_cases(spec: KernelSpec, picked: Sequence[Case], dtype: DType, order: int,
                 result: OpCheckResult) -> None:
    for case in picked:
        where = case.describe(spec)
        argnums = [i for i, a in enumerate(case.inputs) if is_floating_numpy(a.dtype)]
        for k in range(_output_count(spec, case)):
            try:
                tol = GRADIENT_TOLERANCES[dtype]
                check_gradients(_kernel_function(spec, case.attrs, k), *case.inputs, argnums=argnums,
                                order=order, dtype=dtype, eps=tol["eps"], atol=tol["atol"], rtol=tol["rtol"])
            except AssertionError as exc:
                result.add("gradient", where, str(exc))
            except KernelNotFoundError as exc:
                needed = _missing_kernel(exc, result.backend)
                if needed is None:
                    result.add("gradient", where, f"computing the gradient raised KernelNotFoundError: {exc}")
                    continue
                if needed not in result.blocked_by:
                    result.blocked_by.append(needed)
                result.add("blocked", where, f"the gradient needs kernel '{needed}', which backend "
                           f"'{result.backend}' does not have: tp.grad through '{spec.name}' fails there "
                           f"until it does")
            except Exception as exc:
                result.add("gradient", where, f"computing the gradient raised {type(exc).__name__}: {exc}")
        result.gradient_cases += 1


_MISSING = re.compile(r"^Kernel '([^']+)' is not registered for backend '([^']+)'")


def _missing_kernel(exc: KernelNotFoundError, backend: str) -> str | None:
    """The kernel a KernelNotFoundError says `backend` lacks (None if it is about another)."""
    match = _MISSING.match(str(exc))
    return match.group(1) if match and match.group(2) == backend else None
