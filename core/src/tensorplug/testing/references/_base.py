"""The reference table's entry type and registry, and the case builders its families share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensorplug.dtypes import DType
from tensorplug.errors import RegistrationError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.compare import Tolerance
from tensorplug.testing.inputs import (
    BROADCAST_PAIRS,
    EDGE_SHAPES,
    NOT_BROADCASTABLE,
    BadCase,
    Case,
    Domain,
    accepted,
    dtype_groups,
    sample,
)

__all__ = [
    "Reference", "REFERENCES", "register_reference", "check_reference", "reference", "CaseMaker",
    "BadCaseMaker", "unary_cases", "binary_cases", "broadcast_bad_cases", "no_cases",
    "other_dtypes",
]

#: ``cases(spec)``: the kernel's spec in, the Cases to call the kernel with out (host arrays in
#: the spec's input order, attributes, a label); ``unary_cases``/``binary_cases`` make the kit's own.
CaseMaker = Callable[[KernelSpec], Iterable[Case]]
#: ``bad_cases(spec)``: BadCases, inputs the spec must refuse and the error type it must raise.
BadCaseMaker = Callable[[KernelSpec], Iterable[BadCase]]
#: ``check(outputs, case, attrs, rerun)``: a property check for kernels whose values cannot be
#: predicted (random numbers); ``rerun(attrs)`` runs the kernel again with other attributes.
#: Returns what is wrong, or None.
PropertyCheck = Callable[
    [Sequence[np.ndarray], Case, dict[str, Any], Callable[[dict[str, Any]], Sequence[np.ndarray]]],
    "str | None",
]


def no_cases(spec: KernelSpec) -> list[BadCase]:
    return []


@dataclass(frozen=True)
class Reference:
    """What the kit knows about one kernel beyond its spec: the inputs to call it with, and
    either numpy code computing its outputs or a property check of them.

    ``cases(spec)`` is a CaseMaker: given the kernel's spec, it returns the Cases to run (their
    non-"special" ones also serve the gradient check). ``compute(*inputs, **attrs)`` gets the
    case's host arrays (floats in float64 when ``upcast``) and the spec-normalized attributes,
    and returns the output (a tuple for several); the kit casts it to the dtype the spec's rule
    gives. ``bad_cases(spec)`` gives inputs the spec must refuse (beyond those the kit derives
    from the spec itself).
    ``rtol``/``atol`` replace the float tolerances (one value, or one per dtype name): looser
    for kernels that need it, tighter where small values must be accurate (Expm1 near 0).
    """

    kernel: str
    cases: CaseMaker
    compute: Callable[..., Any] | None = None
    check: PropertyCheck | None = None
    bad_cases: BadCaseMaker = no_cases
    upcast: bool = True
    rtol: Tolerance = None
    atol: Tolerance = None


REFERENCES: dict[str, Reference] = {}


def register_reference(ref: Reference, *, override: bool = False) -> Reference:
    """Teach the kit a kernel (a plugin's own kernel spec, say); ``override=True`` replaces an
    existing entry."""
    check_reference(ref, "register_reference")
    old = REFERENCES.get(ref.kernel)
    if old is not None and old != ref and not override:
        raise RegistrationError(f"the kit already has a reference for '{ref.kernel}'; pass "
                                "override=True to replace it.")
    REFERENCES[ref.kernel] = ref
    return ref


def check_reference(ref: Any, who: str) -> None:
    """Raise RegistrationError unless `ref` is a Reference with exactly one of compute/check."""
    if not isinstance(ref, Reference):
        raise RegistrationError(f"{who} takes a tensorplug.testing.Reference, got {type(ref).__name__}")
    if (ref.compute is None) == (ref.check is None):
        raise RegistrationError(f"Reference for '{ref.kernel}' needs exactly one of compute= "
                                "(numpy reference values) or check= (a property check).")


def reference(kernel: str, cases: CaseMaker, bad_cases: BadCaseMaker = no_cases,
              **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register the function as the numpy reference of `kernel`."""
    def register(compute: Callable[..., Any]) -> Callable[..., Any]:
        register_reference(Reference(kernel, cases, compute=compute, bad_cases=bad_cases, **options))
        return compute
    return register


# -- case builders -------------------------------------------------------------------------
def _specials(values: Sequence[Any], dtype: DType) -> np.ndarray | None:
    """Hand-picked values as `dtype`, or None where they do not fit it (fractions for ints,
    finite values past a half float's range)."""
    arr = np.asarray(values, dtype=np.float64)
    if dtype.is_bool:
        return None
    if dtype.is_integer and not np.array_equal(arr, np.round(arr)):
        return None
    with np.errstate(over="ignore"):
        out = arr.astype(dtype.numpy)
    if dtype.is_floating and (np.isfinite(arr) & ~np.isfinite(out.astype(np.float64))).any():
        return None
    return out


def unary_cases(domain: Domain = Domain(), specials: Sequence[float] = ()
                ) -> Callable[[KernelSpec], list[Case]]:
    """Every accepted dtype x the edge shapes (0-d, empty, size-1, ...), values from `domain`,
    plus `specials` (hand-picked values, e.g. halves for Round) for each dtype they fit."""
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for d in accepted(spec, spec.inputs[0]):
            out += [Case((sample(s, d, domain, key=(spec.name, i)),)) for i, s in enumerate(EDGE_SHAPES)]
            picked = _specials(specials, d) if specials else None
            if picked is not None:
                out.append(Case((picked,), label="special"))
        return out
    return cases


def binary_cases(x: Domain = Domain(), y: Domain = Domain(), specials: Sequence[Sequence[float]] = ()
                 ) -> Callable[[KernelSpec], list[Case]]:
    """Every accepted dtype x broadcasting shape pairs (0-d, empty, size-1 included)."""
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for dtypes in dtype_groups(spec):
            d = dtypes[spec.inputs[0]]
            for i, (xs, ys) in enumerate(BROADCAST_PAIRS):
                out.append(Case((sample(xs, d, x, key=(spec.name, i, "x")),
                                 sample(ys, d, y, key=(spec.name, i, "y")))))
            if specials:
                pair = [np.asarray(v).astype(bool) if d.is_bool else _specials(v, d) for v in specials]
                if all(p is not None for p in pair):
                    out.append(Case(tuple(pair), label="special"))  # type: ignore[arg-type]
        return out
    return cases


def broadcast_bad_cases(spec: KernelSpec) -> list[BadCase]:
    """Shapes that do not broadcast: ShapeError."""
    d = next(iter(dtype_groups(spec)))[spec.inputs[0]]
    return [BadCase((sample(xs, d), sample(ys, d)), error=ShapeError, why="shapes that do not broadcast")
            for xs, ys in NOT_BROADCASTABLE]



def other_dtypes(spec: KernelSpec, cases: Sequence[Case], input_name: str,
                 make: Callable[[DType], Case]) -> list[Case]:
    """One case, ``make(dtype)``, for each dtype the spec accepts for `input_name` that `cases`
    never give it: the attribute grid stays on a dtype or two, every other dtype gets one case."""
    i = list(spec.inputs).index(input_name)
    seen = {c.inputs[i].dtype for c in cases if len(c.inputs) > i}
    return [make(d) for d in accepted(spec, input_name) if np.dtype(d.numpy) not in seen]
