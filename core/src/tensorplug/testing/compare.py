"""Comparing a kernel's values with reference values: exact for bool and integer dtypes,
``|got - expected| <= atol + rtol * |expected|`` for floats and complex numbers (with the
tolerance of their real precision), and a report of the worst element."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

import numpy as np

from tensorplug.dtypes import DType, bfloat16, float16, float32, float64, is_floating_numpy, real_of

__all__ = ["TOLERANCES", "Tolerance", "tolerance", "compare_values", "show_array"]

#: A float tolerance given by a caller: one value, or one per dtype name ({"float32": 1e-4}).
Tolerance: TypeAlias = "float | Mapping[str, float] | None"

#: (rtol, atol) per float dtype: values are O(1) and reductions small, so a few ulps of
#: float32 (or float64) rounding per element fit, and real mistakes do not.
#: The half-precision dtypes get a few of their ulps (float16's is 1e-3, bfloat16's 8e-3).
TOLERANCES: dict[DType, tuple[float, float]] = {float16: (4e-3, 4e-3), bfloat16: (3e-2, 3e-2),
                                               float32: (1e-5, 1e-5), float64: (1e-10, 1e-12)}


def _pick(value: Tolerance, dtype: DType, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, Mapping):
        return float(value.get(dtype.name, default))
    return float(value)


def tolerance(dtype: DType, rtol: Tolerance = None, atol: Tolerance = None) -> tuple[float, float]:
    """(rtol, atol) for comparing values of `dtype` (zeros for bool and integer dtypes);
    `rtol`/`atol` replace the defaults, for every float dtype or per dtype name."""
    if not dtype.is_inexact:
        return 0.0, 0.0
    base = TOLERANCES.get(real_of(dtype) if dtype.is_complex else dtype, (0.0, 0.0))
    return _pick(rtol, dtype, base[0]), _pick(atol, dtype, base[1])


def show_array(a: np.ndarray, limit: int = 24) -> str:
    """A compact one-line rendering of a small array (or its shape and a few values)."""
    a = np.asarray(a)
    if a.size <= limit:
        return np.array2string(a, precision=6, separator=", ", max_line_width=10**6).replace("\n", "")
    head = ", ".join(f"{v:.6g}" if is_floating_numpy(a.dtype) else str(v) for v in a.ravel()[:6])
    return f"array of shape {a.shape}: [{head}, ...]"


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def compare_values(got: np.ndarray, want: np.ndarray, dtype: DType, rtol: Tolerance = None,
                   atol: Tolerance = None) -> str | None:
    """None if `got` matches `want` (same shape, values within tolerance of `dtype`), else a
    message naming the worst element: its index, the value got and the value expected."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.size == 0:
        return None
    if dtype.is_complex:
        # finite values: |got - want| within the real dtype's tolerance of |want| (as numpy's
        # allclose: a part that cancels to near 0 is judged against the whole value); where want
        # holds an inf or a NaN, each part as a real value (the standard's special cases)
        r, a = tolerance(dtype, rtol, atol)
        g, w = got.astype(np.complex128), want.astype(np.complex128)
        finite = np.isfinite(w)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.where(finite, np.abs(g - w), 0.0)
            bad = finite & ~(err <= a + r * np.abs(w))
        if bad.any():
            flat = int(np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1.0)))
            allowed = a + r * abs(w.ravel()[flat])
            return (f"worst element at index {_index(flat, got.shape)}: got {g.ravel()[flat]!r}, expected "
                    f"{w.ravel()[flat]!r} (|error| {err.ravel()[flat]:.3g}, allowed {allowed:.3g}); "
                    f"{int(bad.sum())} of {bad.size} element(s) out of tolerance")
        for part, name in ((np.real, "real"), (np.imag, "imaginary")):
            problem = compare_values(part(got)[~finite], part(want)[~finite], real_of(dtype), rtol, atol)
            if problem:
                return f"{name} part: {problem}"
        return None
    r, a = tolerance(dtype, rtol, atol)
    if not dtype.is_inexact:
        bad = got != want
        if not bad.any():
            return None
        flat = int(np.flatnonzero(bad)[0])
        idx = _index(flat, got.shape)
        return (f"first wrong element at index {idx}: got {got.ravel()[flat]!r}, expected "
                f"{want.ravel()[flat]!r}; {int(bad.sum())} of {bad.size} element(s) differ")
    wide = np.complex128 if dtype.is_complex else np.float64
    g, w = got.astype(wide), want.astype(wide)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # (allowed is 0 for atol=0 at 0)
        err = np.abs(g - w)
        same = (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
        err = np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))
        allowed = a + r * np.abs(np.where(np.isfinite(w), w, 0.0))
        excess = err / allowed
    bad = excess > 1
    if not bad.any():
        return None
    flat = int(np.argmax(np.where(np.isnan(excess), np.inf, excess)))
    idx = _index(flat, got.shape)
    gv, wv, ev, av = g.ravel()[flat], w.ravel()[flat], err.ravel()[flat], allowed.ravel()[flat]
    return (f"worst element at index {idx}: got {gv:.9g}, expected {wv:.9g} (abs error {ev:.3g}, "
            f"allowed {av:.3g} = atol {a:g} + rtol {r:g} * |expected|); {int(bad.sum())} of "
            f"{bad.size} element(s) out of tolerance")
