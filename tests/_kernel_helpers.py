"""Shared helpers of the kernel tests (tests/test_kernels_*.py): run a kernel through the public
``tensorplug.run_kernel`` on the active backend and hold its result to the kernel spec's
contract. The kernel and gradient tests run once per first-party backend (conftest.py
parametrizes them with the `tp_backend` fixture, which makes that backend active).

The grids: a kernel meets one dtype of each kind its spec accepts (`per_kind`: bool, int,
uint, float, complex) unless a test asks for every dtype where that finds bugs (casts, half
floats' reductions, integer overflow edges). Every accepted dtype is still held to the kit's
references by the conformance runs (tests/test_conformance_numpy.py, both backends). Expected
values come from the kit's references (`check_with_kit`) wherever the kit has the case. A case
naming a dtype the active backend does not hold (or the kernel it names does not serve) is
skipped, as the kit skips it (`unheld_dtypes`, called by conftest's `tp_backend`)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.backends.lifecycle import active_backend
from tensorplug.dtypes import ALL_DTYPES, DType, from_numpy_dtype, is_floating_numpy
from tensorplug.extend import TensorInfo, current_runtime, get_kernel, get_kernel_spec
from tensorplug.testing.compare import compare_values
from tensorplug.testing.dtype_probe import held_dtypes
from tensorplug.testing.inputs import Case
from tensorplug.testing.references import get_reference

NP = {d: d.numpy for d in ALL_DTYPES}
FLOATS = (tp.float32, tp.float64)
INTS = (tp.int32, tp.int64)


def accepted_dtypes(name: str, input_name: str | None = None) -> tuple[DType, ...]:
    """The dtypes kernel `name`'s spec accepts for one input (its first by default)."""
    spec = get_kernel_spec(name)
    return tuple(spec.input_dtypes.get(input_name or spec.inputs[0], ALL_DTYPES))


#: the dtype a grid picks for each kind, where the spec accepts it (else the kind's first)
KIND_PICKS = (tp.bool, tp.int32, tp.uint8, tp.float32, tp.complex64)


def per_kind(dtypes: Iterable[DType], also: Iterable[DType] = ()) -> tuple[DType, ...]:
    """One dtype of each kind among `dtypes` (those of KIND_PICKS first), plus those of `also`
    that are among them, in `dtypes`' order."""
    dtypes = tuple(dtypes)
    chosen = {d for d in KIND_PICKS if d in dtypes} | {d for d in also if d in dtypes}
    kinds = {d.kind for d in chosen}
    for d in dtypes:
        if d.kind not in kinds:
            chosen.add(d)
            kinds.add(d.kind)
    return tuple(d for d in dtypes if d in chosen)


#: where accumulating in few bits goes wrong (sums, norms, running sums)
HALF_FLOATS = (tp.float16, tp.bfloat16)


def kernel_dtype_cases(names: Iterable[str], input_name: str | None = None, *,
                       every_dtype: bool = False, also: Iterable[DType] = ()) -> list[Any]:
    """pytest params (name, dtype) for every kernel in `names` x one dtype per kind its spec
    accepts and those of `also` (`per_kind`), or every dtype it accepts if `every_dtype`."""
    also = tuple(also)
    pick = (lambda ds: ds) if every_dtype else (lambda ds: per_kind(ds, also))
    return [pytest.param(n, d, id=f"{n}-{d.name}") for n in names
            for d in pick(accepted_dtypes(n, input_name))]


def _dtypes_in(value: Any) -> Iterable[DType]:
    """The dtypes a test parameter names: a DType, a numpy dtype, or those in a tuple or list."""
    if isinstance(value, DType):
        yield value
    elif isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        with contextlib.suppress(tp.DTypeError):  # (not a tensorplug dtype: the test's own business)
            yield from_numpy_dtype(np.dtype(value))
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _dtypes_in(v)


def unheld_dtypes(params: Mapping[str, Any]) -> str | None:
    """Why a test of the grid with these parameters cannot run on the active backend (None: it
    can): a dtype it names that the backend does not hold, or that the kernel it names does not
    serve (its KernelConfig's dtypes), as the conformance kit skips them (``held_dtypes``)."""
    backend = active_backend()
    served = held_dtypes(backend)
    for value in params.values():
        if isinstance(value, str) and (value, backend.name) in current_runtime().kernels.active:
            served = served.narrowed(get_kernel(value, backend.name).dtypes, value)
    lacking = {d: None for v in params.values() for d in _dtypes_in(v) if d not in served.dtypes}
    if not lacking:
        return None
    return f"backend '{backend.name}' does not run this case: " + "; ".join(served.reasons(lacking))


def kit_cases(name: str, dtype: DType) -> list[Case]:
    """The conformance kit's cases of kernel `name` whose first input is of `dtype`."""
    spec = get_kernel_spec(name)
    reference = get_reference(name)
    assert reference is not None and reference.compute is not None, f"the kit has no reference for {name}"
    return [c for c in reference.cases(spec) if c.inputs and c.inputs[0].dtype == dtype.numpy]


def kit_values(name: str, *inputs: np.ndarray, **attrs: Any) -> np.ndarray:
    """The kit's reference values of kernel `name` on host `inputs` (floats taken in float64
    and complex numbers in complex128 where the reference says so) and `attrs`."""
    spec = get_kernel_spec(name)
    reference = get_reference(name)
    assert reference is not None and reference.compute is not None, f"the kit has no reference for {name}"
    wide = [a.astype(np.float64) if reference.upcast and is_floating_numpy(a.dtype) else
            a.astype(np.complex128) if reference.upcast and a.dtype.kind == "c" else a for a in inputs]
    with np.errstate(all="ignore"):
        return np.asarray(reference.compute(*wide, **spec.normalize_attrs(attrs)))


def check_with_kit(name: str, dtype: DType) -> int:
    """Run kernel `name` on the active backend on each of the kit's cases of `dtype` (`run`:
    the spec's shapes and dtypes, inputs untouched) and compare with the kit's reference
    values, within its tolerances; return how many cases ran."""
    spec = get_kernel_spec(name)
    reference = get_reference(name)
    assert reference is not None
    cases = kit_cases(name, dtype)
    assert cases, f"the kit has no case of {name} for {dtype.name}"
    for case in cases:
        got = run(name, dict(zip(spec.inputs, case.inputs)), case.attrs)
        with np.errstate(all="ignore"):
            want = kit_values(name, *case.inputs, **case.attrs).astype(got.dtype)
        problem = compare_values(got, want, from_numpy_dtype(got.dtype), reference.rtol, reference.atol)
        assert problem is None, f"{name} on {case.describe(spec)}: {problem}"
    return len(cases)


def sample(shape: tuple[int, ...], dtype: DType, low: float = -3, high: float = 3,
           seed: int = 0) -> np.ndarray:
    """Deterministic test values of `dtype`: bools, integers in [low, high] (and in the dtype's
    range), floats in [low, high), complex numbers with both parts so."""
    rng = np.random.default_rng(seed)
    if dtype is tp.bool_:
        return rng.random(shape) < 0.5
    if dtype.is_complex:
        real = tp.dtypes.real_of(dtype)
        parts = sample(shape, real, low, high, seed), sample(shape, real, low, high, seed + 1)
        return (parts[0] + 1j * parts[1]).astype(dtype.numpy)
    if dtype.is_integer:
        low = max(low, np.iinfo(dtype.numpy).min)
        return rng.integers(int(low), int(max(high, low)), size=shape, endpoint=True).astype(dtype.numpy)
    return rng.uniform(low, high, size=shape).astype(dtype.numpy)


def holds(dtype: DType, value: Any) -> bool:
    """Whether an output of `dtype` holds the Python scalar `value` (integers: in range)."""
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy)
        return bool(np.isfinite(value)) and info.min <= int(value) <= info.max
    return True


def info(array: Any) -> TensorInfo:
    array = np.asarray(array)
    return TensorInfo(tuple(array.shape), from_numpy_dtype(array.dtype))


def run(name: str, inputs: Mapping[str, Any], attrs: Mapping[str, Any] | None = None) -> np.ndarray:
    """``tp.run_kernel(name, inputs, attrs)`` on numpy inputs (a list under a variadic input).

    Checks that the output's dtype and shape are exactly what the spec's rule predicts from
    ``TensorInfo`` inputs, that the native result is a numpy array or scalar of that dtype, and
    that the kernel left its inputs untouched. Returns the result as a numpy array.
    """
    spec = get_kernel_spec(name)
    arrays: list[np.ndarray] = []
    for input_name in spec.inputs:
        value = inputs[input_name]
        arrays.extend(np.asarray(v) for v in (value if spec.variadic else [value]))
    tensors = [tp.asarray(a) for a in arrays]
    call_inputs = {spec.inputs[0]: tensors} if spec.variadic else dict(zip(spec.inputs, tensors))
    out = tp.run_kernel(name, call_inputs, attrs)

    (expected,) = spec.check([info(a) for a in arrays], spec.normalize_attrs(attrs))
    backend = active_backend()
    assert out.backend == backend.name
    assert backend.is_native(out.native), type(out.native)
    assert backend.dtype_of(out.native) is expected.dtype, (
        f"{name}: the kernel returned {out.native.dtype}, the spec says {expected.dtype.name}")
    assert out.dtype is expected.dtype
    if -1 not in expected.shape:  # a value-dependent size (NonZero) is not predicted
        assert out.shape == expected.shape, f"{name}: shape {out.shape}, the spec says {expected.shape}"
    for t, a in zip(tensors, arrays):
        assert np.asarray(t.numpy()).tobytes() == a.tobytes(), f"{name} mutated an input"  # (bit for bit)
    return np.asarray(out.numpy())


# a few ulps of each float dtype (float16's ulp at 1 is 1e-3, bfloat16's 8e-3)
_TOLERANCE = {tp.float16: 4e-3, tp.bfloat16: 3.2e-2, tp.float32: 2e-6, tp.float64: 1e-13}


def assert_values(got: np.ndarray, want: Any, dtype: DType | None = None) -> None:
    """got == want exactly for bool and integer results, within the dtype's precision for real
    and complex floats (the reference may be computed in float64 / complex128); NaNs must match."""
    dtype = dtype or from_numpy_dtype(got.dtype)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype.is_inexact:
        tol = _TOLERANCE[tp.dtypes.real_of(dtype)]
        wide = np.complex128 if dtype.is_complex else np.float64
        np.testing.assert_allclose(got, want.astype(wide), rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want.astype(dtype.numpy))


def message(*fragments: str) -> str:
    """A `match=` pattern requiring every fragment (literally, in any order)."""
    return "(?s)" + "".join(f"(?=.*{re.escape(f)})" for f in fragments)


def raises_for(name: str, error: type[BaseException], inputs: Mapping[str, Any],
               attrs: Mapping[str, Any] | None = None, *fragments: str) -> pytest.ExceptionInfo[Any]:
    """run_kernel(name, ...) raises `error` (a TensorplugError) whose message names the
    kernel, the backend and every fragment given."""
    assert issubclass(error, tp.TensorplugError)
    spec = get_kernel_spec(name)
    call_inputs = {
        k: ([np.asarray(a) for a in v] if spec.variadic else np.asarray(v)) for k, v in inputs.items()
    }
    backend = tp.get_backend()
    with pytest.raises(error, match=message(f"Kernel '{name}'", f"backend '{backend}'", *fragments)) as exc:
        tp.run_kernel(name, call_inputs, attrs)
    return exc
