"""Reference values of the creation kernels (Fill, Range, Eye) and property checks of the random
ones (RandomUniform, RandomNormal), whose streams differ between backends: the right shape and
dtype, values in range, the same seed giving the same values, another seed other values, and
sample moments close to the distribution's."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorplug.dtypes import (
    ALL_DTYPES,
    COMPLEX_DTYPES,
    FLOAT_DTYPES,
    SIGNED_INT_DTYPES,
    UNSIGNED_INT_DTYPES,
    DType,
    float32,
    float64,
    int32,
    int64,
)
from tensorplug.errors import DTypeError, ShapeError, TensorplugError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case
from tensorplug.testing.references._base import Reference, reference, register_reference


def _attr_cases(rows: Sequence[dict[str, Any]]) -> Any:
    def cases(spec: KernelSpec) -> list[Case]:
        return [Case((), attrs) for attrs in rows]
    return cases


#: rows of (attrs, the error expected, why the attrs are bad)
AttrBad = list[tuple[dict[str, Any], type[TensorplugError], str]]


def _attr_bad(rows: AttrBad) -> Any:
    def cases(spec: KernelSpec) -> list[BadCase]:
        return [BadCase((), attrs, error=error, why=why) for attrs, error, why in rows]
    return cases


_FILL = [{"shape": (2, 3), "value": 1.5, "dtype": d} for d in FLOAT_DTYPES] + [
    {"shape": (3,), "value": -2, "dtype": d} for d in SIGNED_INT_DTYPES] + [
    {"shape": (2,), "value": 200, "dtype": d} for d in UNSIGNED_INT_DTYPES] + [
    {"shape": (2,), "value": 1.5 - 2j, "dtype": d} for d in COMPLEX_DTYPES] + [
    {"shape": (2,), "value": True, "dtype": ALL_DTYPES[0]}, {"shape": (), "value": 7.0, "dtype": float64},
    {"shape": (0, 2), "value": 1.0, "dtype": float32}, {"shape": (1,), "value": 0, "dtype": int32}]
_FILL_BAD: AttrBad = [({"shape": (-2,), "value": 1.0}, ShapeError, "a negative size"),
             ({"shape": (2,), "value": 1.0, "dtype": "datetime64[s]"}, DTypeError, "an unknown dtype"),
             ({"shape": (2,), "value": -1, "dtype": "uint8"}, DTypeError, "a value the dtype cannot hold"),
             ({"shape": (2,), "value": 1j, "dtype": "float32"}, DTypeError, "a complex value, real dtype")]
reference("Fill", _attr_cases(_FILL), _attr_bad(_FILL_BAD))(
    lambda shape, value, dtype: np.full(shape, value, dtype.numpy))

_RANGE = [{"start": 0, "stop": 5, "step": 1, "dtype": int64},
          {"start": 5, "stop": 0, "step": -1, "dtype": int32},
          {"start": 1.0, "stop": 2.0, "step": 0.25, "dtype": float32},
          {"start": 0, "stop": 0, "step": 1, "dtype": int64},
          {"start": 0.0, "stop": 1.0, "step": 0.1, "dtype": float64},
          {"start": 3, "stop": 1, "step": 1, "dtype": float32},
          {"start": -2, "stop": 7, "step": 3, "dtype": float64}, {"stop": 1, "step": 1, "dtype": int64}]
_RANGE_BAD: AttrBad = [({"start": 0, "stop": 5, "step": 0}, ShapeError, "a zero step")]


@reference("Range", _attr_cases(_RANGE), _attr_bad(_RANGE_BAD), upcast=False)
def _range(start: Any, stop: Any, step: Any, dtype: DType) -> np.ndarray:
    """start + step * i for i < ceil((stop - start) / step), computed exactly then cast once."""
    n = max(0, math.ceil((stop - start) / step))
    exact = all(isinstance(v, int) for v in (start, stop, step))
    return (np.arange(n, dtype=np.int64 if exact else np.float64) * step + start).astype(dtype.numpy)


_EYE = [{"n_rows": 3, "n_cols": 3, "dtype": d} for d in ALL_DTYPES] + [
    {"n_rows": 2, "n_cols": 4, "k": 1}, {"n_rows": 4, "n_cols": 2, "k": -1}, {"n_rows": 0, "n_cols": 3},
    {"n_rows": 3, "n_cols": 3, "k": 5}, {"n_rows": 1, "n_cols": 1, "dtype": int64}]
_EYE_BAD: AttrBad = [({"n_rows": -1, "n_cols": 2}, ShapeError, "a negative size"),
            ({"n_rows": 2.5, "n_cols": 2}, DTypeError, "a float size")]
reference("Eye", _attr_cases(_EYE), _attr_bad(_EYE_BAD))(
    lambda n_rows, n_cols, k, dtype: np.eye(n_rows, n_cols, k, dtype=dtype.numpy))


# -- random kernels: properties, not values ------------------------------------------------
def _random_cases(extra: dict[str, Any]) -> Any:
    def cases(spec: KernelSpec) -> list[Case]:
        out = []
        for d in FLOAT_DTYPES:
            for shape in ((), (0,), (1,), (3, 4)):
                out.append(Case((), {"shape": shape, "seed": 7, "dtype": d}))
            out.append(Case((), {"shape": (4000,), "seed": 3, "dtype": d, **extra}, label="sample"))
        out.append(Case((), {"shape": (5,), "seed": -4}))  # negative seeds are seeds too
        return out
    return cases


_RANDOM_BAD = _attr_bad([({"shape": (3,), "seed": 0, "dtype": int32}, DTypeError, "an integer dtype"),
                         ({"shape": (-1, 2), "seed": 0}, ShapeError, "a negative size"),
                         ({"shape": (3,)}, ShapeError, "no seed")])


Rerun = Callable[[dict[str, Any]], Sequence[np.ndarray]]


def _seeded(out: np.ndarray, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    if not np.isfinite(out).all():
        return "non-finite samples"
    if not np.array_equal(rerun(attrs)[0], out):
        return f"the same seed ({attrs['seed']}) gave different values on a second call"
    if out.size >= 2 and np.array_equal(rerun({**attrs, "seed": attrs["seed"] + 1})[0], out):
        return f"seeds {attrs['seed']} and {attrs['seed'] + 1} gave the same values"
    return None


def _uniform(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    out = np.asarray(outputs[0], dtype=np.float64)
    lo, hi = attrs["low"], attrs["high"]
    if out.size and not ((out >= lo).all() and (out < hi).all()):
        return f"samples outside [{lo}, {hi}): min {out.min():.6g}, max {out.max():.6g}"
    if case.label == "sample":
        mean, std = out.mean(), out.std()
        want_mean, want_std = (lo + hi) / 2, (hi - lo) / math.sqrt(12)
        if abs(mean - want_mean) > 0.05 * (hi - lo) or abs(std - want_std) > 0.1 * want_std:
            return (f"{out.size} samples have mean {mean:.4g} and std {std:.4g}; uniform on [{lo}, {hi}) "
                    f"has mean {want_mean:.4g} and std {want_std:.4g}")
    return _seeded(out, attrs, rerun)


def _normal(outputs: Sequence[np.ndarray], case: Case, attrs: dict[str, Any], rerun: Rerun) -> str | None:
    out = np.asarray(outputs[0], dtype=np.float64)
    if case.label == "sample":
        mean, std = out.mean(), out.std()
        m, s = attrs["mean"], attrs["stddev"]
        if abs(mean - m) > 0.1 * s or abs(std - s) > 0.1 * s:
            return (f"{out.size} samples have mean {mean:.4g} and std {std:.4g}; expected about "
                    f"{m:.4g} and {s:.4g}")
    return _seeded(out, attrs, rerun)


register_reference(Reference("RandomUniform", _random_cases({"low": -2.0, "high": 5.0}), check=_uniform,
                             bad_cases=_RANDOM_BAD))
register_reference(Reference("RandomNormal", _random_cases({"mean": 1.5, "stddev": 2.0}), check=_normal,
                             bad_cases=_RANDOM_BAD))


# -- Threefry2x32: the hash of random keys, bit for bit ------------------------------------
_U32 = np.uint64(0xFFFFFFFF)
#: Random123's known answers for threefry2x32_20 (key, counter, output), as JAX's tests hold them
_KNOWN = (((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
          ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
          ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)))
#: shapes of (k1, k2, x1, x2): one key over counters (how keys draw), a batch of keys, empty
_WORD_SHAPES = (((), (), (), ()), ((), (), (), (7,)), ((), (), (5,), (5,)), ((3, 1), (3, 1), (), (4,)),
                ((2, 3), (2, 3), (2, 3), (2, 3)), ((), (), (), (0,)), ((1,), (), (2, 1), (1, 3)))


def _threefry_cases(spec: KernelSpec) -> list[Case]:
    rng = np.random.default_rng(34)
    out = [Case(tuple(rng.integers(0, 2**32, s, dtype=np.uint32) for s in shapes)) for shapes in _WORD_SHAPES]
    keys, counters, _ = (np.array(column, np.uint32).T for column in zip(*_KNOWN))
    out.append(Case((keys[0], keys[1], counters[0], counters[1]), label="special"))
    return out


def _threefry_bad(spec: KernelSpec) -> list[BadCase]:
    words = (np.zeros(2, np.uint32), np.zeros(2, np.uint32), np.zeros(3, np.uint32), np.zeros(3, np.uint32))
    return [BadCase(words, error=ShapeError, why="words that do not broadcast")]


@reference("Threefry2x32", _threefry_cases, _threefry_bad, upcast=False)
def _threefry(k1: np.ndarray, k2: np.ndarray, x1: np.ndarray, x2: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32, 20 rounds (Salmon et al. 2011), in uint64 masked to 32 bits after each add."""
    k1, k2, x1, x2 = (np.asarray(w, np.uint64) for w in (k1, k2, x1, x2))
    schedule = (k1, k2, k1 ^ k2 ^ np.uint64(0x1BD11BDA))
    a, b = (k1 + x1) & _U32, (k2 + x2) & _U32
    for i in range(20):
        r = np.uint64(((13, 15, 26, 6), (17, 29, 16, 24))[i // 4 % 2][i % 4])
        a = (a + b) & _U32
        b = (((b << r) | (b >> (np.uint64(32) - r))) & _U32) ^ a
        if i % 4 == 3:
            s = i // 4 + 1
            a = (a + schedule[s % 3]) & _U32
            b = (b + schedule[(s + 1) % 3] + np.uint64(s)) & _U32
    return a.astype(np.uint32), b.astype(np.uint32)
