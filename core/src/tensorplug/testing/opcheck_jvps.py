"""Forward mode checked numerically: ``check_jvp`` compares ``tp.jvp`` with central finite
differences along random tangents; the kit's "jvp" check runs it on a kernel's gradient cases
(the kernel's JVP rule in force, or its gradient transposed where it has none)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import DType, float32, float64, is_floating_numpy
from tensorplug.errors import KernelNotFoundError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.registry.gradients import find_gradient, override_gradient
from tensorplug.registry.jvps import find_jvp, override_jvp
from tensorplug.testing.inputs import Case
from tensorplug.testing.opcheck_gradients import (
    GRADIENT_TOLERANCES,
    _gradient_to_check,
    _kernel_function,
    _missing_kernel,
    _output_count,
    gradient_cases,
    rule_to_check,
)
from tensorplug.testing.result import OpCheckResult
from tensorplug.transforms.autodiff.forward import jvp

__all__ = ["check_jvp", "check_kernel_jvp"]

MAX_JVP_CASES = 2


def check_jvp(f: Callable[..., Any], *args: Any, argnums: Sequence[int] | None = None, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-5, seed: int = 0, dtype: Any = None) -> None:
    """Check ``tp.jvp(f)`` at `args` against central finite differences along a random tangent
    (fixed by `seed`) of the floating arguments `argnums` (default: all of them), cast to
    float64 (or `dtype`). AssertionError naming the worst element on a mismatch."""
    want = np.dtype(np.float64) if dtype is None else np.dtype(asarray(0, dtype=dtype).dtype.numpy)
    host = [np.asarray(a) for a in args]
    nums = [i for i, a in enumerate(host) if is_floating_numpy(a.dtype)] if argnums is None else list(argnums)
    points = [a.astype(want) if i in nums else a for i, a in enumerate(host)]
    rng = np.random.default_rng(seed)
    tangents = {i: rng.standard_normal(points[i].shape).astype(want) for i in nums}

    def at(step: float) -> np.ndarray:
        moved = [p + step * tangents[i] if i in nums else p for i, p in enumerate(points)]
        return np.asarray(f(*moved).numpy(), dtype=np.float64)

    def g(*xs: Any) -> Any:
        full = [xs[nums.index(i)] if i in nums else p for i, p in enumerate(points)]
        return f(*full)
    primals = tuple(points[i] for i in nums)
    _, got = jvp(g, primals, tuple(tangents[i] for i in nums))
    analytic = np.asarray(got.numpy(), dtype=np.float64)
    numeric = (at(eps) - at(-eps)) / (2 * eps)
    err = np.abs(analytic - numeric)
    bad = err > atol + rtol * np.abs(numeric)
    if bad.any():
        i = np.unravel_index(int(np.argmax(np.where(bad, err, -1.0))), err.shape) if err.ndim else ()
        raise AssertionError(
            f"jvp of {getattr(f, '__name__', 'f')} disagrees with finite differences (eps={eps}) at "
            f"output index {tuple(int(k) for k in i)}: forward mode {analytic[i]!r}, numeric "
            f"{numeric[i]!r} (|error| {err[i]:.3g} > atol {atol} + rtol {rtol} * |numeric|)")


def check_kernel_jvp(spec: KernelSpec, cases: Sequence[Case], has_float64: bool,
                     result: OpCheckResult) -> None:
    """Record in `result` whether forward mode through `spec`'s kernel agrees with finite
    differences (the JVP rule in force, or the gradient transposed)."""
    if not spec.differentiable:
        result.jvp = "not differentiable (the spec says so)"
        return
    rule = rule_to_check(spec, result, "jvps", find_jvp, "JVP rule")
    # (a gradient transposed where there is no rule: the one the gradient check holds, whose
    # notes that check gives)
    gradient = _gradient_to_check(spec, OpCheckResult(spec.name, result.backend))
    source = "its JVP rule" if rule is not None else "its gradient transposed"
    dtype = float64 if has_float64 else float32
    picked = gradient_cases(spec, cases, dtype, MAX_JVP_CASES)
    if not picked:
        result.jvp = f"not checked (no small {dtype.name} case to check it on)"
        return
    with contextlib.ExitStack() as scope:
        if rule is not None and rule is not find_jvp(spec.name):
            scope.enter_context(override_jvp(rule))
        if gradient is not None and gradient is not find_gradient(spec.name):
            scope.enter_context(override_gradient(gradient))
        checked = _check_cases(spec, picked, dtype, source, result)
    result.jvp = f"checked on {checked} case(s) in {dtype.name} ({source})"


def _check_cases(spec: KernelSpec, picked: Sequence[Case], dtype: DType, source: str,
                 result: OpCheckResult) -> int:
    tol = GRADIENT_TOLERANCES[dtype]
    checked = 0
    for case in picked:
        argnums = [i for i, a in enumerate(case.inputs) if is_floating_numpy(a.dtype)]
        for k in range(_output_count(spec, case)):
            try:
                check_jvp(_kernel_function(spec, case.attrs, k), *case.inputs, argnums=argnums,
                          dtype=dtype, eps=tol["eps"], atol=tol["atol"], rtol=tol["rtol"])
            except AssertionError as exc:
                result.add("jvp", case.describe(spec), f"{source}: {exc}")
            except KernelNotFoundError as exc:
                needed = _missing_kernel(exc, result.backend)
                if needed is None:
                    result.add("jvp", case.describe(spec), f"forward mode raised KernelNotFoundError: {exc}")
                    continue
                if needed not in result.blocked_by:
                    result.blocked_by.append(needed)
                result.add("blocked", case.describe(spec), f"forward mode through '{spec.name}' ({source}) "
                           f"needs kernel '{needed}', which backend '{result.backend}' does not have")
            except Exception as exc:
                result.add("jvp", case.describe(spec),
                           f"{source}: forward mode raised {type(exc).__name__}: {exc}")
        checked += 1
    return checked
