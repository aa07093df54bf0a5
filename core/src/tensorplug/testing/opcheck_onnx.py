"""The kit's "onnx" check: each of the kernel's cases (in the dtypes onnxruntime's CPU provider
computes with broadly: float32, int32, int64, bool) exported with ``tp.export`` through the
kernel's ONNX lowering, run in onnxruntime, and compared with the kernel's own output on the
backend export traces with (numpy, whatever backend the kit checks: the exported graph is that
trace's; float32 within 1e-5, the rest exactly). Needs the ``onnx`` and ``onnxruntime`` packages; a kernel
without a lowering, a case its lowering refuses, or an operator onnxruntime does not implement
for a dtype is a note, not a problem. (A kernel without tensor inputs (Fill, Eye, the random
kernels), which a trace folds into a constant, is checked as a graph of that one call.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.backends.lifecycle import backend_scope
from tensorplug.errors import ExportError, TensorplugError
from tensorplug.export import onnx_model
from tensorplug.exporting.graph import TRACE_BACKEND, KernelGraph
from tensorplug.exporting.onnx_model import DEFAULT_OPSET, build_model
from tensorplug.families.activations.arithmetic import complex as make_complex
from tensorplug.families.elementwise.ops import imag, real
from tensorplug.kernels.kernel_spec import KernelSpec, TensorInfo
from tensorplug.kernels.run import run_kernel
from tensorplug.registry.onnx_lowerings import find_onnx_lowering
from tensorplug.testing.compare import show_array
from tensorplug.testing.inputs import Case
from tensorplug.testing.result import OpCheckResult
from tensorplug.transforms.jit.planner import Step

__all__ = ["check_onnx", "ONNX_DTYPES", "ONNX_TOLERANCES"]

#: the dtypes the check runs cases of (complex64 values enter and leave the exported function as
#: their float32 real and imaginary parts: ONNX has no complex dtype)
ONNX_DTYPES = ("float32", "int32", "int64", "bool", "complex64")
#: (rtol, atol) per inexact dtype; other dtypes compare exactly
ONNX_TOLERANCES = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}


def _runtime() -> Any:
    try:
        import onnxruntime  # (optional: a test dependency)
    except ImportError as exc:
        raise ImportError("the kit's onnx check needs onnxruntime: pip install onnxruntime") from exc
    return onnxruntime


def check_onnx(spec: KernelSpec, cases: Sequence[Case], result: OpCheckResult) -> None:
    """Record in `result` whether the kernel's ONNX lowering computes what the kernel computes."""
    lowering = find_onnx_lowering(spec.name)
    if lowering is None:
        result.onnx = "no lowering"
        return
    ort = _runtime()
    options = ort.SessionOptions()
    options.log_severity_level = 3  # (errors only)
    ran = refused = 0
    lacking: set[str] = set()
    opset = max(DEFAULT_OPSET, lowering.min_opset)  # (the lowering's own, where it needs a newer one)
    for case in cases:
        if (spec.inputs and not case.inputs) or any(a.dtype.name not in ONNX_DTYPES for a in case.inputs) or \
                any(a.size == 0 for a in case.inputs) or _extremes(case):
            continue
        where = case.describe(spec)

        def fn(*xs: Any, case: Case = case) -> Any:
            inputs = {spec.inputs[0]: list(xs)} if spec.variadic else dict(zip(spec.inputs, xs))
            return run_kernel(spec.name, inputs, case.attrs)

        try:
            with backend_scope(TRACE_BACKEND):
                want = fn(*case.inputs)
            wants = want if isinstance(want, (tuple, list)) else (want,)
            if any(t.dtype.name not in ONNX_DTYPES for t in wants):
                continue
            feeds = _parts(case.inputs)
            model = onnx_model(_through_parts(fn, case.inputs, wants), *feeds, opset=opset) if spec.inputs \
                else _one_call(spec, case, wants, opset)
        except ExportError as exc:
            if exc.__cause__ is not None:  # the lowering raised, or wrote an invalid model
                result.add("onnx", where, str(exc))
                continue
            refused += 1
            if refused == 1:
                result.notes.append(f"onnx: the lowering refuses some cases, e.g. {where}: {exc}")
            continue
        except TensorplugError:
            continue  # (the kernel refuses the case: the values check reports that)
        ran += 1
        try:
            session = ort.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
            names = [i.name for i in session.get_inputs()]
            got = _joined(session.run(None, dict(zip(names, feeds))), wants)
        except Exception as exc:
            if "NOT_IMPLEMENTED" in str(exc):  # (onnxruntime's gap, not the lowering's)
                ran -= 1
                lacking.add(", ".join(sorted({a.dtype.name for a in case.inputs} or
                                             {t.dtype.name for t in wants})))
                continue
            result.add("onnx", where, f"onnxruntime could not run the lowered kernel: {type(exc).__name__}: "
                       f"{exc}")
            continue
        for name, g, w in zip(spec.output_names(len(wants)), got, wants):
            problem = _compare(np.asarray(g), np.asarray(w.numpy()))
            if problem:
                result.add("onnx", where, f"output '{name}': {problem}\ninputs: "
                           f"{'; '.join(show_array(a) for a in case.inputs)}\n"
                           f"onnxruntime: {show_array(np.asarray(g))}\n"
                           f"kernel:      {show_array(np.asarray(w.numpy()))}")
                break
    refusals = f", {refused} refused by the lowering" if refused else ""
    result.onnx = f"{ran} case(s) through onnxruntime{refusals}"
    if lacking:
        result.notes.append(f"onnx: onnxruntime implements no operator of the lowering for {sorted(lacking)}")


def _parts(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The arrays fed to the exported function: a complex one as its real and imaginary parts."""
    out: list[np.ndarray] = []
    for a in arrays:
        out += [np.array(a.real), np.array(a.imag)] if a.dtype.kind == "c" else [np.asarray(a)]
    return out


def _through_parts(fn: Callable[..., Any], arrays: Sequence[np.ndarray],
                   wants: Sequence[Any]) -> Callable[..., Any]:
    """`fn` taking and returning complex values as their real and imaginary parts (tp.complex,
    tp.real and tp.imag around it); `fn` itself where no value is complex."""
    if not any(a.dtype.kind == "c" for a in arrays) and not any(t.dtype.is_complex for t in wants):
        return fn

    def through(*parts: Any) -> tuple[Any, ...]:
        given = iter(parts)
        xs = [make_complex(next(given), next(given)) if a.dtype.kind == "c" else next(given) for a in arrays]
        out = fn(*xs)
        flat: list[Any] = []
        for t in out if isinstance(out, (tuple, list)) else (out,):
            flat += [real(t), imag(t)] if t.dtype.is_complex else [t]
        return tuple(flat)
    return through


def _joined(got: Sequence[np.ndarray], wants: Sequence[Any]) -> list[np.ndarray]:
    """onnxruntime's outputs with each complex output's parts joined again."""
    given = iter(got)
    return [np.asarray(next(given) + 1j * next(given), t.dtype.numpy) if t.dtype.is_complex else next(given)
            for t in wants]


def _one_call(spec: KernelSpec, case: Case, outputs: Sequence[Any], opset: int) -> Any:
    """The ONNX model of one call of a kernel without inputs (a trace would fold it into a
    constant): a graph of that call alone."""
    values = tuple(range(len(outputs)))
    step = Step(spec.name, run_kernel, False, spec.normalize_attrs(case.attrs), (), values, len(values) == 1)
    names = ["output"] if len(values) == 1 else [f"output_{i}" for i in values]
    graph = KernelGraph((), {}, {}, (step,), tuple(zip(values, names)),
                        {i: TensorInfo(tuple(t.shape), t._dtype) for i, t in zip(values, outputs)})
    return build_model(graph, opset)


def _compare(got: np.ndarray, want: np.ndarray) -> str | None:
    if got.shape != want.shape:
        return f"shape {got.shape}, the kernel's {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, the kernel's {want.dtype}"
    tol = ONNX_TOLERANCES.get(want.dtype.name)
    if tol is None:
        return None if np.array_equal(got, want) else "values differ (compared exactly)"
    rtol, atol = tol
    with np.errstate(all="ignore"):
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    return f"{int((~close).sum())} of {close.size} values differ beyond rtol {rtol}, atol {atol}"


def _extremes(case: Case) -> bool:
    """Whether an integer input holds its dtype's least or greatest value (where sums and
    products overflow: ONNX leaves overflow unspecified, and onnxruntime does not wrap)."""
    for a in case.inputs:
        if a.dtype.kind in "iu" and a.size:
            info = np.iinfo(a.dtype)
            if a.min() == info.min or a.max() == info.max:
                return True
    return False
