"""Inputs for the conformance kit: value domains, deterministic samples, the cases a kernel is
called with (good and bad), and generic cases derived from a kernel spec alone.

A ``Case`` holds host (numpy) arrays in the spec's input order (for a variadic spec, the list
of tensors under its one input) and the attributes; ``describe()`` gives the text messages
use ("x: float32[2, 3], y: float32[3]; attrs {}").
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tensorplug.dtypes import ALL_DTYPES, DType, as_dtype, from_numpy_dtype, real_of
from tensorplug.errors import DTypeError, ShapeError, TensorplugError
from tensorplug.kernels.kernel_spec import REQUIRED, KernelSpec, TensorInfo, describe

__all__ = [
    "Domain", "Case", "BadCase", "sample", "integer_extremes",
    "EDGE_SHAPES", "BROADCAST_PAIRS", "NOT_BROADCASTABLE",
    "accepted", "dtype_groups", "generic_cases", "generic_domain", "generic_bad_cases", "infos_of",
]

#: Shapes every elementwise kernel meets: 0-d, empty, size-1, a vector and two matrices.
EDGE_SHAPES: tuple[tuple[int, ...], ...] = ((), (0,), (1,), (4,), (2, 3), (3, 0))

#: (x shape, y shape) pairs covering equal shapes, broadcasting of every kind, 0-d and empty.
BROADCAST_PAIRS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((2,), ()), ((), ()),
    ((1,), (1,)), ((0, 3), (1, 3)), ((1,), (0,)),
)

#: Shape pairs that do not broadcast (a binary kernel must give ShapeError).
NOT_BROADCASTABLE: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (((2, 3), (4,)), ((3,), (2,)))


@dataclass(frozen=True)
class Domain:
    """Where sample values come from: floats uniform in [low, high); integers in
    [ceil(low), floor(high)]. ``margin`` keeps |x| >= margin (clear of a kink at 0);
    ``off_grid`` keeps floats clear of integers and halves (where rounding jumps)."""

    low: float = -3.0
    high: float = 3.0
    margin: float = 0.0
    off_grid: bool = False


ANY = Domain()


def _rng(*key: Any) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sample(shape: Sequence[int], dtype: DType | Any, domain: Domain = ANY, key: Any = 0) -> np.ndarray:
    """Deterministic values of `dtype` (a tensorplug dtype, or what ``as_dtype`` takes: a numpy
    dtype, a name) and `shape` from `domain` (seeded by `key`); integers within the dtype's range
    too; complex values have real and imaginary parts from `domain`."""
    if dtype.__class__ is not DType:
        try:
            dtype = as_dtype(dtype)
        except DTypeError as exc:
            raise DTypeError(f"tensorplug.testing.sample: {exc}") from None
    shape = tuple(shape)
    rng = _rng(tuple(shape), dtype.name, domain, key)
    if dtype.is_bool:
        return rng.random(shape) < 0.5
    if dtype.is_complex:
        real = sample(shape, real_of(dtype), domain, key)
        return (real + 1j * sample(shape, real_of(dtype), domain, (key, "imag"))).astype(dtype.numpy)
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy)
        lo, hi = max(int(np.ceil(domain.low)), int(info.min)), min(int(np.floor(domain.high)), int(info.max))
        hi = max(hi, lo)
        ints: np.ndarray = rng.integers(lo, hi, size=shape, endpoint=True)
        if domain.margin > 0:  # integers clear of zero
            ints = np.where(ints == 0, 1 if hi >= 1 else -1, ints)
        return ints.astype(dtype.numpy)
    values: np.ndarray = rng.uniform(domain.low, domain.high, size=shape)
    if domain.margin > 0:
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        if domain.low >= 0:
            sign = np.ones(shape)
        elif domain.high <= 0:
            sign = -np.ones(shape)
        top = max(abs(domain.low), abs(domain.high))
        values = sign * rng.uniform(domain.margin, top, size=shape)
    if domain.off_grid:  # fractional parts in [0.1, 0.4] or [0.6, 0.9]
        frac = rng.uniform(0.1, 0.4, size=shape) + np.where(rng.random(shape) < 0.5, 0.0, 0.5)
        values = np.floor(values) + frac
    return np.asarray(values).astype(dtype.numpy)


def integer_extremes(dtype: DType) -> np.ndarray:
    """The values of integer `dtype` a kernel that reads it as another dtype of its size gets
    wrong: its minimum and maximum, 2^(n-1) (unsigned: the first a signed reading makes
    negative), -1 (signed: all bits set) and 1, as a 1-d array."""
    info = np.iinfo(dtype.numpy)
    middle = 2 ** (8 * dtype.itemsize - 1) if dtype.is_unsigned_integer else -1
    return np.array([int(info.min), int(info.max), middle, 1], dtype=dtype.numpy)


@dataclass(frozen=True)
class Case:
    """One call of a kernel: host inputs in spec order (for a variadic spec, its tensors),
    attributes, and a label ("special" cases hold hand-picked values and are not reused for
    gradient checks)."""

    inputs: tuple[np.ndarray, ...]
    attrs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    def infos(self) -> list[TensorInfo]:
        """The shape and dtype of each input, as ``TensorInfo``."""
        return infos_of(self.inputs)

    def describe(self, spec: KernelSpec) -> str:
        """The case in words for a report: each input's name, shape and dtype, and the attributes."""
        names = ([f"{spec.inputs[0]}[{i}]" for i in range(len(self.inputs))] if spec.variadic
                 else list(spec.inputs))
        shown = ", ".join(f"{n}: {describe(i)}" for n, i in zip(names, self.infos())) or "no inputs"
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"{shown}; attrs {{{attrs}}}" + (f" ({self.label})" if self.label else "")


@dataclass(frozen=True)
class BadCase(Case):
    """Inputs the spec refuses: running them must raise `error` (a tensorplug error type).
    ``by_value``: only the input values make them bad (a shape given as a tensor), so the kernel
    refuses them and the spec alone cannot."""

    error: type[TensorplugError] = ShapeError
    why: str = ""
    by_value: bool = False


def infos_of(arrays: Iterable[np.ndarray]) -> list[TensorInfo]:
    return [TensorInfo(tuple(a.shape), from_numpy_dtype(a.dtype)) for a in arrays]


def accepted(spec: KernelSpec, input_name: str) -> tuple[DType, ...]:
    """The dtypes the spec accepts for one input (every dtype if it does not say)."""
    return tuple(spec.input_dtypes.get(input_name, ALL_DTYPES))


def index_array(indices: Any, spec: KernelSpec, input_name: str, k: int) -> np.ndarray:
    """`indices` as an array of the `k`-th (cycling) dtype the spec accepts for the index input
    `input_name`, so that a table of cases meets every index dtype once or more without
    multiplying the table by them; int64 where that dtype is unsigned and an index negative."""
    dtypes = accepted(spec, input_name)
    dtype = dtypes[k % len(dtypes)]
    values = np.asarray(indices)
    if dtype.is_unsigned_integer and values.size and values.min() < 0:
        dtype = next(d for d in dtypes if d.is_signed_integer)
    return values.astype(dtype.numpy)


def dtype_groups(spec: KernelSpec, choices: Mapping[str, Sequence[DType]] | None = None
                 ) -> Iterator[dict[str, DType]]:
    """Every assignment of dtypes to the spec's inputs that it accepts: the inputs in
    ``same_dtype`` share each dtype they all accept, every other input runs through its own
    accepted dtypes (or `choices`). Variadic specs give their one input's dtypes."""
    names = list(spec.inputs)
    own = {n: tuple((choices or {}).get(n, accepted(spec, n))) for n in names}
    same = [n for n in names if n in spec.same_dtype]
    free = [n for n in names if n not in spec.same_dtype]
    shared: list[DType | None] = [None]
    if same:
        shared = [d for d in own[same[0]] if all(d in own[n] for n in same)]
    for d in shared:
        for combo in itertools.product(*(own[n] for n in free)):
            out = dict(zip(free, combo))
            out.update({n: d for n in same if d is not None})
            yield out


# -- generic cases: for specs the kit has no reference for ----------------------------------
_GENERIC_SHAPES: tuple[tuple[int, ...], ...] = ((2, 3), (), (1,), (4,), (0,), (2, 1, 3))
#: for a spec that declares no domain: both signs (a kernel missing an abs must show it), and
#: clear of 0 (where abs-like kernels have a kink that finite differences would trip on)
GENERIC_DOMAIN = Domain(-1.5, 1.5, margin=0.5)
_SPAN = 3.0  # the width sampled of a domain bounded on one side only


def generic_domain(spec: KernelSpec) -> Domain:
    """Where generic cases sample: GENERIC_DOMAIN, or inside the domain the spec declares
    (``KernelSpec.domain``), a tenth of its sampled width clear of each bound: (0, inf) gives
    [0.3, 2.7], (-1, 1) gives [-0.8, 0.8]."""
    low, high = spec.domain
    if math.isinf(low) and math.isinf(high):
        return GENERIC_DOMAIN
    lo = low if not math.isinf(low) else high - _SPAN
    hi = high if not math.isinf(high) else low + _SPAN
    pad = (hi - lo) / 10
    return Domain(lo + pad, hi - pad)


def _default_attrs(spec: KernelSpec) -> dict[str, Any] | None:
    attrs = spec.attr_defaults()
    return None if any(v is REQUIRED for v in attrs.values()) else attrs


def generic_cases(spec: KernelSpec) -> list[Case]:
    """Cases built from the spec alone: default attributes, every accepted dtype assignment,
    and the shapes of a small list (the same for every input) that the spec's rule accepts,
    with values of both signs unless the spec declares its domain (``generic_domain``).
    Empty when an attribute is required (the kit cannot guess its value)."""
    attrs = _default_attrs(spec)
    if attrs is None:
        return []
    domain = generic_domain(spec)
    cases = []
    n = 2 if spec.variadic else len(spec.inputs)
    for dtypes in dtype_groups(spec):
        per_input = [dtypes[spec.inputs[0]]] * n if spec.variadic else [dtypes[i] for i in spec.inputs]
        for shape in _GENERIC_SHAPES if n else [()]:
            arrays = tuple(sample(shape, d, domain, key=(spec.name, i))
                           for i, d in enumerate(per_input))
            case = Case(arrays, attrs)
            try:
                spec.check(case.infos(), spec.normalize_attrs(attrs))
            except (ShapeError, DTypeError):
                continue
            cases.append(case)
            if not n:
                break
    return cases


def _swap_dtype(case: Case, index: int, dtype: DType) -> Case:
    arrays = list(case.inputs)
    arrays[index] = sample(arrays[index].shape, dtype, key=("bad", index))
    return Case(tuple(arrays), case.attrs)


def generic_bad_cases(spec: KernelSpec, good: Case | None) -> list[BadCase]:
    """Bad inputs derived from the spec and one good case: a dtype an input does not accept,
    inputs that must share a dtype but do not, an unknown attribute, a missing required one."""
    if good is None:
        return []
    out: list[BadCase] = []
    names = ([spec.inputs[0]] * len(good.inputs) if spec.variadic else list(spec.inputs))
    for i, name in enumerate(names):
        refused = [d for d in ALL_DTYPES if d not in accepted(spec, name)]
        if refused:
            bad = _swap_dtype(good, i, refused[0])
            out.append(BadCase(bad.inputs, bad.attrs, error=DTypeError,
                               why=f"input '{name}' given {refused[0].name}, which the spec refuses"))
            break
    same = [i for i, n in enumerate(names) if n in spec.same_dtype]
    if len(same) >= 2:
        first = good.inputs[same[0]].dtype
        other = next((d for d in accepted(spec, names[same[-1]]) if d.numpy != first), None)
        if other is not None:
            bad = _swap_dtype(good, same[-1], other)
            out.append(BadCase(bad.inputs, bad.attrs, error=DTypeError,
                               why=f"inputs {list(spec.same_dtype)} with different dtypes"))
    out.append(BadCase(good.inputs, {**good.attrs, "no_such_attribute": 1}, error=ShapeError,
                       why="an attribute the spec does not have"))
    required = [a.name for a in spec.attrs if a.default is REQUIRED]
    if required:
        attrs = {k: v for k, v in good.attrs.items() if k != required[0]}
        out.append(BadCase(good.inputs, attrs, error=ShapeError,
                           why=f"the required attribute '{required[0]}' left out"))
    return out
