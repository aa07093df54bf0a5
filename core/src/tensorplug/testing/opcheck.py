"""opcheck: hold one kernel on one backend to its kernel spec and to the kit's references.

Everything runs through the public API (``backend_scope`` and ``run_kernel``), as user code
would: the kernel exists; on the reference's inputs (every accepted dtype, broadcasting, 0-d,
empty and size-1 shapes, attribute variants) its outputs are native arrays of the backend with
the shapes and dtypes the spec's rule gives (every call is checked, as under
``tp.debug_checks()``) and the values numpy gives (within float tolerances); its
inputs are left untouched; bad inputs raise the spec's typed error (not a KernelError); and
its gradient is registered (unless the spec says it is not differentiable) and agrees with
finite differences (``check_gradients``, in float64 where the backend has it), and so does
forward mode through it (``check_jvp``: its JVP rule, or its gradient transposed); and its
batching rule, where it has one, agrees with a loop over the batch (``check_batching``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import Backend, active_backend, backend_scope
from tensorplug.core.runtime import current
from tensorplug.core.tensor import Tensor
from tensorplug.dtypes import float64, from_numpy_dtype, is_floating_numpy, is_inexact_numpy
from tensorplug.errors import KernelError, KernelOutputError, TensorplugError
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.kernel_spec import REQUIRED, KernelSpec, TensorInfo, describe
from tensorplug.kernels.lookup import missing_kernel_error
from tensorplug.kernels.run import run_kernel
from tensorplug.registry.specs import get_kernel_spec
from tensorplug.testing.compare import Tolerance, compare_values, show_array
from tensorplug.testing.dtype_probe import HeldDtypes, held_dtypes, runs_in
from tensorplug.testing.inputs import BadCase, Case, generic_bad_cases, generic_cases
from tensorplug.testing.opcheck_batching import MAX_BATCHING_CASES, check_batching
from tensorplug.testing.opcheck_gradients import check_gradient
from tensorplug.testing.opcheck_jvps import check_kernel_jvp
from tensorplug.testing.opcheck_onnx import check_onnx
from tensorplug.testing.references import Reference, get_reference
from tensorplug.testing.result import OpCheckResult
from tensorplug.tools.debug import debug_checks

__all__ = ["opcheck", "assert_opcheck", "CHECKS", "ALL_CHECKS", "supports_float64"]

#: What opcheck checks by default; pass a subset as ``checks=``.
CHECKS = ("values", "errors", "gradient", "jvp", "batching")
#: What opcheck can check: the defaults, and "onnx" (the ONNX lowering in onnxruntime; needs
#: the onnx and onnxruntime packages)
ALL_CHECKS = (*CHECKS, "onnx")


def opcheck(kernel_name: str, backend: str | None = None, *, checks: Iterable[str] = CHECKS,
            reference: Reference | None = None, rtol: Tolerance = None, atol: Tolerance = None,
            gradient_order: int = 1, rerun: str | None = None,
            max_cases: int | None = None, batching_cases: int = MAX_BATCHING_CASES) -> OpCheckResult:
    """Check kernel `kernel_name` on `backend` (default: the active one); return the result.

    ``checks`` picks among "values" (shapes, dtypes, values), "errors" (bad inputs),
    "gradient", "jvp" (forward mode against finite differences) and "batching" (the vmap rule
    against a loop), and, when asked, "onnx" (the ONNX lowering, run in onnxruntime).
    ``reference`` replaces the kit's own entry for this kernel (for a plugin's
    kernel spec the kit does not know). ``rtol``/``atol`` override the float tolerances (one
    value, or one per dtype name). ``gradient_order`` > 1 also checks higher derivatives.
    ``rerun`` is the command a report shows for running the check again. ``max_cases`` bounds
    the cases checked (``bounded``): a quicker run for a backend that compiles every case;
    ``batching_cases`` the cases "batching" checks (each in up to three batch layouts).
    Raises KernelSpecNotFoundError for an unknown kernel name; problems are in the result.
    """
    checks = tuple(checks)
    unknown = sorted(set(checks) - set(ALL_CHECKS))
    if unknown:
        raise ValueError(f"opcheck: unknown check(s) {unknown}; choose from {list(ALL_CHECKS)}")
    with backend_scope(backend) if backend is not None else contextlib.nullcontext(active_backend()) as b:
        spec = get_kernel_spec(kernel_name)  # after the backend started: plugins' specs are known
        ref = reference or get_reference(spec.name)
        result = OpCheckResult(spec.name, b.name, reference=_kind(ref),
                               rerun=rerun or _rerun(spec.name, b.name))
        if not _implemented(spec, b, result):
            return result
        held = held_dtypes(b)
        serves = held.narrowed(current().kernels.active[(spec.name, b.name)].dtypes, spec.name)
        has_f64 = float64 in serves.dtypes
        cases = bounded(_cases(spec, ref, held, serves, result), max_cases)
        if "values" in checks:
            for case in cases:
                _check_case(spec, ref, case, b, result, rtol, atol)
        if "errors" in checks:
            for bad in _bad_cases(spec, ref, cases):
                if not runs_in(bad, held, serves):
                    _check_bad(spec, bad, result)
        if "gradient" in checks:
            check_gradient(spec, cases, has_f64, result, gradient_order)
        if "jvp" in checks:
            check_kernel_jvp(spec, cases, has_f64, result)
        if "batching" in checks:
            check_batching(spec, cases, result, batching_cases)
        if "onnx" in checks:
            check_onnx(spec, cases, result)
    return result


def assert_opcheck(kernel_name: str, backend: str | None = None, **options: Any) -> OpCheckResult:
    """``opcheck(...)`` that raises OpCheckError (an AssertionError) with the report on a problem."""
    return opcheck(kernel_name, backend, **options).assert_ok()


def _kind(ref: Reference | None) -> str:
    if ref is None:
        return "none"
    return "values" if ref.compute is not None else "properties"


def _rerun(kernel: str, backend: str) -> str:
    return (f"python -c \"import tensorplug.testing as t; t.opcheck('{kernel}', backend='{backend}')"
            ".assert_ok()\"")


def supports_float64(backend: Backend) -> bool:
    """Whether `backend` holds float64 arrays as float64 (JAX without x64 does not)."""
    try:
        return backend.dtype_of(backend.from_numpy(np.zeros(2, np.float64))) is float64
    except Exception:
        return False


def _cases(spec: KernelSpec, ref: Reference | None, held: HeldDtypes, serves: HeldDtypes,
           result: OpCheckResult) -> list[Case]:
    if ref is None:
        cases = generic_cases(spec)
        result.notes.append("no reference values: the kit does not know this kernel, so it checked output "
                            "shapes and dtypes against the spec's rule (and the gradient) only; teach it "
                            "with tensorplug.testing.register_reference(Reference(...))")
        if not cases:
            required = [a.name for a in spec.attrs if a.default is REQUIRED]
            result.notes.append(f"no inputs: the kit cannot guess the required attribute(s) {required}")
    else:
        cases = list(ref.cases(spec))
    return _held_cases(spec, cases, held, serves, result)


def _held_cases(spec: KernelSpec, cases: list[Case], held: HeldDtypes, serves: HeldDtypes,
                result: OpCheckResult) -> list[Case]:
    """The cases whose dtypes the kernel serves and the backend holds; a note names the others'
    dtypes, why they are skipped and (for a backend that declares none) how to declare."""
    kept, left = [], set()
    for case in cases:
        try:
            outputs = [o.dtype for o in spec.check(case.infos(), spec.normalize_attrs(case.attrs))]
        except TensorplugError:  # (reported when the case runs)
            outputs = []
        lacking = runs_in(case, held, serves, outputs)
        if lacking:
            left.update(lacking)
        else:
            kept.append(case)
    if left:
        why = "; ".join(serves.reasons(left))
        how = "" if serves.declared else f" ({serves.declaration()})"
        result.notes.append(f"{len(cases) - len(kept)} case(s) not run, in dtypes the backend does not "
                            f"hold or the kernel does not serve: {why}{how}")
    return kept


def bounded(cases: list[Case], limit: int | None) -> list[Case]:
    """At most `limit` of `cases` (all if None), in their order: the first case of each
    combination of input dtypes (so every dtype is still checked), then cases evenly spread
    over the others."""
    if limit is None or len(cases) <= limit:
        return cases
    firsts: dict[tuple[str, ...], int] = {}
    for i, case in enumerate(cases):
        firsts.setdefault(tuple(str(a.dtype) for a in case.inputs), i)
    kept = set(firsts.values())
    others = [i for i in range(len(cases)) if i not in kept]
    room = max(0, limit - len(kept))
    if room and others:
        spread = (len(others) - 1) / max(room - 1, 1)
        kept.update(others[round(k * spread)] for k in range(min(room, len(others))))
    return [cases[i] for i in sorted(kept)]


def _implemented(spec: KernelSpec, backend: Backend, result: OpCheckResult) -> bool:
    if (spec.name, backend.name) in current().kernels.active:
        return True
    result.implemented = False
    result.add("missing", "", f"{missing_kernel_error(spec.name, backend.name)}\n"
               f"A backend registers it from its tensorplug_kernels hook: "
               f"register(KernelConfig('{spec.name}', '{backend.name}', kernel_func)).")
    return False


def _tensors(case: Case) -> list[Tensor]:
    return [asarray(a, dtype=from_numpy_dtype(a.dtype)) for a in case.inputs]


def _call(spec: KernelSpec, tensors: Sequence[Tensor], attrs: Any) -> tuple[Tensor, ...]:
    inputs = {spec.inputs[0]: list(tensors)} if spec.variadic else dict(zip(spec.inputs, tensors))
    out = run_kernel(spec.name, inputs, attrs)
    return out if isinstance(out, tuple) else (out,)


def _inputs_text(spec: KernelSpec, case: Case) -> str:
    names = [f"{spec.inputs[0]}[{i}]" for i in range(len(case.inputs))] if spec.variadic else spec.inputs
    return "; ".join(f"{n} = {show_array(a)}" for n, a in zip(names, case.inputs))


def _check_case(spec: KernelSpec, ref: Reference | None, case: Case, backend: Backend,
                result: OpCheckResult, rtol: Tolerance, atol: Tolerance) -> None:
    where = case.describe(spec)
    attrs = spec.normalize_attrs(case.attrs)
    try:
        expected = spec.check(case.infos(), attrs)
    except TensorplugError as exc:
        result.add("kit", where, f"the spec refuses this case of the kit's reference: {exc}")
        return
    result.cases += 1
    try:
        tensors = _tensors(case)
        with debug_checks():
            outputs = _call(spec, tensors, case.attrs)
    except KernelOutputError as exc:  # not what the spec promises: how many, of what type, dtype, shape
        result.add("outputs", where, str(exc))
        return
    except Exception as exc:  # a kernel must not raise on inputs its spec accepts
        result.add("raised", where, f"{type(exc).__name__}: {exc}")
        return
    if len(outputs) != len(expected):
        result.add("shape", where, f"{len(outputs)} output(s); the spec has {len(expected)}")
        return
    host = []
    for name, t, want in zip(spec.output_names(len(expected)), outputs, expected):
        if not _output_ok(name, t, want, backend, where, result):
            return
        host.append(np.asarray(t.numpy()))
    for t, a in zip(tensors, case.inputs):
        if not np.array_equal(np.asarray(t.numpy()), a, equal_nan=is_inexact_numpy(a.dtype)):
            result.add("mutated", where, "the kernel changed one of its input arrays (native arrays are "
                       f"never written after creation): it was {show_array(a)}, now {show_array(t.numpy())}")
            return
    if ref is None:
        return
    if ref.check is not None:
        def rerun(changed: dict[str, Any]) -> list[np.ndarray]:
            return [np.asarray(o.numpy()) for o in _call(spec, tensors, changed)]
        problem = ref.check(host, case, attrs, rerun)
        if problem:
            result.add("values", where, problem)
        return
    _compare(spec, ref, case, attrs, host, expected, where, result, rtol, atol)


def _output_ok(name: str, t: Tensor, want: TensorInfo, backend: Backend, where: str,
               result: OpCheckResult) -> bool:
    if t.backend != backend.name:
        result.add("dtype", where, f"output '{name}' lives on backend '{t.backend}', not '{backend.name}'")
        return False
    if t.dtype is not want.dtype:
        result.add("dtype", where, f"output '{name}' has dtype {t.dtype.name}; the spec says "
                   f"{want.dtype.name} ({describe(want)})")
        return False
    shape = tuple(t.shape)
    fits = len(shape) == len(want.shape) and all(w in (-1, s) for s, w in zip(shape, want.shape))
    if not fits:
        result.add("shape", where, f"output '{name}' has shape {shape}; the spec says {want.shape}")
        return False
    return True


def _compare(spec: KernelSpec, ref: Reference, case: Case, attrs: dict[str, Any], host: list[np.ndarray],
             expected: Sequence[TensorInfo], where: str, result: OpCheckResult,
             rtol: Tolerance, atol: Tolerance) -> None:
    arrays = [a.astype(np.float64) if ref.upcast and is_floating_numpy(a.dtype) else
              a.astype(np.complex128) if ref.upcast and a.dtype.kind == "c" else a for a in case.inputs]
    try:
        with np.errstate(all="ignore"):
            want = ref.compute(*arrays, **attrs)  # type: ignore[misc]
    except Exception as exc:
        result.add("kit", where, f"the kit's reference raised {type(exc).__name__}: {exc}")
        return
    wants = want if isinstance(want, tuple) else (want,)
    for name, got, w, info in zip(spec.output_names(len(expected)), host, wants, expected):
        with np.errstate(over="ignore"):  # (past a half float's range: inf, that dtype's answer)
            w = np.asarray(w).astype(info.dtype.numpy)
        problem = compare_values(got, w, info.dtype, rtol if rtol is not None else ref.rtol,
                                 atol if atol is not None else ref.atol)
        if problem:
            result.add("values", where, f"output '{name}': {problem}\n"
                       f"inputs: {_inputs_text(spec, case) or 'none'}\n"
                       f"got:      {show_array(got)}\nexpected: {show_array(w)}")
            return


def _bad_cases(spec: KernelSpec, ref: Reference | None, cases: list[Case]) -> list[BadCase]:
    good = next((c for c in cases if c.label != "special" and all(a.size for a in c.inputs)), None)
    own = list(ref.bad_cases(spec)) if ref is not None else []
    return own + generic_bad_cases(spec, good)


def _check_bad(spec: KernelSpec, bad: BadCase, result: OpCheckResult) -> None:
    where = bad.describe(spec)
    want = bad.error.__name__
    result.bad_cases += 1
    try:
        _call(spec, _tensors(bad), bad.attrs)
    except bad.error:
        return
    except KernelError as exc:
        result.add("error", where, f"{bad.why}: expected {want}, got KernelError (the kernel raised, and "
                   f"the spec did not explain why): {exc}")
        return
    except Exception as exc:
        result.add("error", where, f"{bad.why}: expected {want}, got {type(exc).__name__}: {exc}")
        return
    result.add("error", where, f"{bad.why}: expected {want}, but the call succeeded")

