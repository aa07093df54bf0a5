"""The batching part of opcheck: does the kernel's batching rule (``tp.vmap``) give what a loop
over the batch gives, on a few of the reference's cases, for any backend?

Each case becomes a batch of three examples: the case itself, then its floating inputs with
their values rolled and reversed (the same values, so the kernel's domain holds; integer and
bool inputs, often indices, stay as they are). The batch is laid out three ways: every input
batched along axis 0; the first input batched along its last axis; only the first input
batched (the others shared by every example). A kernel without a rule is batched by a loop,
which is right by construction: it is noted, not checked."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import from_numpy_dtype, is_inexact_numpy
from tensorplug.errors import DTypeError, KernelNotFoundError, ShapeError, VmapFallbackWarning
from tensorplug.families._common.convert import asarray
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.kernels.run import run_kernel
from tensorplug.registry.batching import find_batching_rule
from tensorplug.testing.compare import compare_values
from tensorplug.testing.inputs import Case
from tensorplug.testing.result import OpCheckResult
from tensorplug.transforms.vmap.api import vmap

__all__ = ["check_batching", "batching_cases", "MAX_BATCHING_CASES"]

MAX_BATCHING_CASES = 4
BATCH = 3  # examples per batch


def batching_cases(spec: KernelSpec, cases: Sequence[Case], limit: int = MAX_BATCHING_CASES) -> list[Case]:
    """Up to `limit` cases with inputs, none empty, the spec accepts: one per distinct
    combination of input shapes and dtypes first."""
    seen: dict[Any, Case] = {}
    for c in cases:
        if not c.inputs or any(a.size == 0 for a in c.inputs):
            continue
        try:
            spec.check(c.infos(), spec.normalize_attrs(c.attrs))
        except (ShapeError, DTypeError):
            continue
        seen.setdefault(tuple((a.shape, str(a.dtype)) for a in c.inputs), c)
    picked = list(seen.values())
    return picked[:limit]


def _examples(case: Case) -> list[list[np.ndarray]]:
    """The batch's examples: the case, then its floating inputs rolled and reversed."""
    def varied(a: np.ndarray, k: int) -> np.ndarray:
        if not is_inexact_numpy(a.dtype) or a.ndim == 0:
            return a
        flat = a.ravel()
        return (np.roll(flat, 1) if k == 1 else flat[::-1]).reshape(a.shape)
    return [[varied(a, k) for a in case.inputs] for k in range(BATCH)]


def _layouts(n: int, ranks: Sequence[int]) -> list[tuple[int | None, ...]]:
    layouts: list[tuple[int | None, ...]] = [(0,) * n]
    if ranks and ranks[0] > 0:
        layouts.append((ranks[0],) + (0,) * (n - 1))
    if n > 1:
        layouts.append((0,) + (None,) * (n - 1))
    return layouts


def check_batching(spec: KernelSpec, cases: Sequence[Case], result: OpCheckResult,
                   limit: int = MAX_BATCHING_CASES) -> None:
    """Record in `result` whether the batching rule in force for `spec`'s kernel agrees with a
    loop over the batch, on up to `limit` of `cases` (``result.batching`` says what was done)."""
    if find_batching_rule(spec.name) is None:
        result.batching = "no rule (vmap loops over the batch)"
        return
    picked = batching_cases(spec, cases, limit)
    if not picked:
        result.batching = "not checked (no non-empty case to check it on)"
        return
    checked = 0
    for case in picked:
        for layout in _layouts(len(case.inputs), [a.ndim for a in case.inputs]):
            _check_case(spec, case, layout, result)
            checked += 1
    result.batching = f"checked on {len(picked)} case(s), {checked} batch layout(s)"


def _check_case(spec: KernelSpec, case: Case, layout: tuple[int | None, ...], result: OpCheckResult) -> None:
    where = f"{case.describe(spec)}; batched along {list(layout)}"
    attrs = spec.normalize_attrs(case.attrs)
    examples = _examples(case)

    def kernel(*xs: Any) -> Any:
        inputs = {spec.inputs[0]: list(xs)} if spec.variadic else dict(zip(spec.inputs, xs))
        return run_kernel(spec.name, inputs, attrs)

    want = _loop(kernel, examples, layout, case)
    if want is None:
        result.notes.append(f"batching not checked with {where}: the kernel refuses an example")
        return
    batched = []
    for i, axis in enumerate(layout):
        a = case.inputs[i] if axis is None else np.stack([ex[i] for ex in examples], axis=axis)
        batched.append(asarray(a, dtype=from_numpy_dtype(a.dtype)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VmapFallbackWarning)
            got = _outputs(vmap(kernel, in_axes=layout)(*batched))
    except KernelNotFoundError as exc:  # the rule needs a kernel the backend lacks
        result.notes.append(f"batching not checked with {where}: {exc}")
        return
    except Exception as exc:
        result.add("batching", where, f"vmap of the kernel raised {type(exc).__name__}: {exc}")
        return
    if len(got) != len(want):
        result.add("batching", where, f"vmap gave {len(got)} output(s), the loop {len(want)}")
        return
    for k, (g, w) in enumerate(zip(got, want)):
        problem = compare_values(g, w, from_numpy_dtype(w.dtype))
        if problem is not None:
            result.add("batching", where, f"output {k}: the batching rule and a loop over the batch differ: "
                       f"{problem}")
            return


def _loop(kernel: Any, examples: list[list[np.ndarray]], layout: tuple[int | None, ...],
          case: Case) -> list[np.ndarray] | None:
    """The outputs of a loop over the examples, stacked (the inputs at None in `layout` are the
    case's own values in every example); None if the kernel refuses an example."""
    try:
        parts = []
        for ex in examples:
            inputs = [ex[i] if axis is not None else case.inputs[i] for i, axis in enumerate(layout)]
            parts.append(_outputs(kernel(*[asarray(a, dtype=from_numpy_dtype(a.dtype)) for a in inputs])))
        return [np.stack(p) for p in zip(*parts)]
    except Exception:
        return None


def _outputs(out: Any) -> list[Any]:
    outs = list(out) if isinstance(out, tuple) else [out]
    return [np.asarray(o.numpy()) if hasattr(o, "numpy") else o for o in outs]
