"""NumPy backend, elementwise kernels: values against numpy references, output dtype and shape
exactly as each spec predicts for every dtype it accepts, broadcasting, edge shapes, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import (
    FLOATS,
    INTS,
    accepted_dtypes,
    assert_values,
    check_with_kit,
    kernel_dtype_cases,
    per_kind,
    raises_for,
    run,
    sample,
)
from tensorplug.dtypes import is_floating_numpy
from tensorplug.extend import KernelSpec, get_kernel_spec
from tensorplug.families.elementwise import spec as elementwise_specs
from tensorplug.testing.references import get_reference


def _f64(x: np.ndarray) -> np.ndarray:
    if is_floating_numpy(x.dtype):
        return x.astype(np.float64)
    return x.astype(np.complex128) if x.dtype.kind == "c" else x


def _kit(name: str) -> Any:
    """The conformance kit's numpy reference of kernel `name`: the one source of its values."""
    reference = get_reference(name)
    assert reference is not None and reference.compute is not None, name
    return reference.compute


ELEMENTWISE = sorted(s.name for s in vars(elementwise_specs).values() if isinstance(s, KernelSpec))
UNARY = [n for n in ELEMENTWISE if len(get_kernel_spec(n).inputs) == 1 and n != "Cast" and n != "Clip"]
BINARY = [n for n in ELEMENTWISE if len(get_kernel_spec(n).inputs) == 2]


def test_the_grids_cover_every_elementwise_spec():
    assert set(ELEMENTWISE) == set(UNARY) | set(BINARY) | {"Cast", "Where", "Clip"}
    assert len(UNARY) >= 30 and len(BINARY) >= 25


# the kit's cases (edge shapes; broadcasting pairs; hand-picked special values) and reference
# values, on each backend, for one dtype of each kind; the conformance runs hold every dtype
@pytest.mark.parametrize(("name", "dtype"), kernel_dtype_cases(UNARY + BINARY))
def test_values_against_the_kit(name, dtype):
    assert check_with_kit(name, dtype) >= 5


# -- values that numpy gets wrong or that need care -------------------------------------------
@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_sigmoid_is_stable_in_both_tails(dtype):
    x = np.array([-1000, -80, -20, -1, 0, 1, 20, 80, 1000], dtype.numpy)
    got = run("Sigmoid", {"x": x})
    assert got[0] == 0 and got[-1] == 1 and got[4] == 0.5
    # relative precision in the lower tail, where 1 - sigmoid(-x) would round to zero
    want = _kit("Sigmoid")(x[1:-1].astype(np.float64))
    np.testing.assert_allclose(got[1:-1], want, rtol=1e-6 if dtype is tp.float32 else 1e-14)


@pytest.mark.parametrize("dtype", accepted_dtypes("Relu"), ids=lambda d: d.name)
def test_relu_keeps_integer_and_float_dtypes(dtype):
    x = np.array([-2, 0, 3] if not dtype.is_unsigned_integer else [2, 0, 3], dtype.numpy)
    got = run("Relu", {"x": x})
    assert got.dtype == dtype.numpy
    assert got.tolist() == [0 if v < 0 else v for v in x.tolist()]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_round_halves_to_even(dtype):
    got = run("Round", {"x": np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], dtype.numpy)})
    assert got.tolist() == [0, 2, 2, 0, -2, 2]


@pytest.mark.parametrize("dtype", (tp.int32, tp.int64), ids=lambda d: d.name)
def test_integer_pow_with_negative_exponents_truncates_toward_zero(dtype):
    x = np.array([2, 1, -1, -1, 0, 3, -2, 5], dtype.numpy)
    y = np.array([-1, -5, -3, -2, -1, 2, 3, 0], dtype.numpy)
    assert run("Pow", {"x": x, "y": y}).tolist() == [0, 1, -1, 1, 0, 9, -8, 1]


INF, NAN = np.inf, np.nan
#: kernel -> inputs holding the standard's special cases (signed zeros, infinities, NaN, values
#: outside the domain), held to numpy computing in the input's own dtype
SPECIAL = {
    "Trunc": ([-1.5, -0.5, -0.0, 0.0, 0.7, 2.5, INF, -INF, NAN],),
    "Acos": ([-1.0, 1.0, 1.5, -2.0, 0.0, NAN],),
    "Asin": ([-1.0, 1.0, 1.5, -2.0, -0.0, NAN],),
    "Atan": ([-0.0, 0.0, INF, -INF, NAN],),
    "Acosh": ([1.0, 0.5, -1.0, INF, NAN],),
    "Asinh": ([-0.0, 0.0, INF, -INF, NAN],),
    "Atanh": ([-1.0, 1.0, 2.0, -0.0, 0.0, NAN],),
    "Cosh": ([-0.0, 100.0, 1000.0, -INF, NAN],),
    "Sinh": ([-0.0, 100.0, -1000.0, INF, NAN],),
    "IsNan": ([NAN, -NAN, INF, -INF, 0.0, -1.0],),
    "IsInf": ([NAN, -NAN, INF, -INF, 0.0, -1.0],),
    "IsFinite": ([NAN, -NAN, INF, -INF, 0.0, -1.0],),
    "Signbit": ([-0.0, 0.0, -NAN, NAN, -INF, INF, -2.0, 2.0],),
    "Atan2": ([0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, INF, -INF, INF, 2.0, -2.0, NAN],
              [0.0, 0.0, -0.0, -0.0, 1.0, -1.0, 0.0, -0.0, INF, INF, -INF, -INF, INF, 1.0]),
    "Copysign": ([1.5, 1.5, 1.5, 1.5, -2.0, NAN, NAN, INF, 0.0],
                 [-0.0, 0.0, -NAN, NAN, 3.0, -1.0, 1.0, -INF, -2.0]),
    "Hypot": ([INF, NAN, -INF, 0.0, -0.0, 3.0, 1e30, 3e-30, NAN],
              [NAN, -INF, 1.0, -4.0, 0.0, NAN, 1e30, 4e-30, 1.0]),
    "Nextafter": ([0.0, -0.0, 0.0, 1.0, 1.0, -1.0, NAN, 2.0, INF, -INF],
                  [1.0, 0.0, -0.0, 2.0, 1.0, -2.0, 1.0, NAN, 0.0, 0.0]),
    "Mod": ([-0.0, 0.0, -0.0, 0.0, 5.5, -5.5, 5.5, -5.5, 1.0, -1.0, 1.0, -1.0, INF, NAN, 0.0, 3.0],
            [2.0, 2.0, -2.0, -2.0, 2.0, 2.0, -2.0, -2.0, INF, INF, -INF, -INF, 2.0, 1.0, 0.0, -0.0]),
}


@pytest.mark.filterwarnings("error")  # no numpy warning (invalid value, overflow) leaves a kernel
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_values_as_numpy(name, dtype):
    inputs = [np.array(v, dtype.numpy) for v in SPECIAL[name]]
    got = run(name, dict(zip(("x", "y"), inputs)))
    ref = _kit(name)
    with np.errstate(all="ignore"):
        want = ref(*inputs)  # in the inputs' dtype: Nextafter's ulp and hypot's range show
    tol = 2e-6 if dtype is tp.float32 else 1e-14  # a few ulps: XLA and numpy round differently
    np.testing.assert_allclose(got, want, rtol=tol, atol=0, equal_nan=True)
    numbers = ~np.isnan(want) if is_floating_numpy(want.dtype) else slice(None)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))  # signed zeros


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", ["LeftShift", "RightShift"])
def test_shifts_past_the_bit_width_or_negative_as_numpy(name, dtype):
    bits = dtype.itemsize * 8
    x = np.array([1, -1, 5, -5, 7, -8, 3, -3, 2**20], dtype.numpy)
    s = np.array([bits - 1, bits - 1, bits, bits + 1, 2 * bits, 100, -1, -2, 0], dtype.numpy)
    got = run(name, {"x": x, "y": s})
    np.testing.assert_array_equal(got, _kit(name)(x, s))
    past = s >= bits
    assert (got[past] == np.where(x[past] < 0, -1 if name == "RightShift" else 0, 0)).all()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
def test_integer_mod_by_zero_is_zero(dtype):
    x = np.array([7, -7, 0, 7, -7], dtype.numpy)
    y = np.array([0, 0, 0, -3, 3], dtype.numpy)
    assert run("Mod", {"x": x, "y": y}).tolist() == [0, 0, 0, -2, 2]


def test_divide_by_zero_follows_ieee():
    with np.errstate(divide="ignore", invalid="ignore"):
        got = run("Divide", {"x": np.array([1, -1, 0], np.float32), "y": np.zeros(3, np.float32)})
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


# -- Cast ---------------------------------------------------------------------------------------
CAST_SOURCES = {
    "bool": np.array([True, False, True]),
    "int": np.array([-3, 0, 2, 7, 127]),
    "uint": np.array([0, 2, 7, 200]),
    "float": np.array([-2.7, -0.5, 0.0, 0.5, 2.7, 100.5]),
    "complex": np.array([-2.5 + 1j, 0j, 0.5 - 0.5j, 1j]),
}


def _cast_pairs() -> list[Any]:
    """Every (source, target) pair of dtypes the Cast spec allows (complex only to complex or bool)."""
    return [pytest.param(s, t, id=f"{s.name}-{t.name}") for s in accepted_dtypes("Cast")
            for t in tp.dtypes.ALL_DTYPES if not s.is_complex or t.is_complex or t.is_bool]


@pytest.mark.parametrize("source, to", _cast_pairs())
def test_cast_between_every_pair(source, to):
    x = CAST_SOURCES[source.kind].astype(source.numpy)
    if source.is_floating and to.is_integer:  # (a float out of the target's range is unspecified)
        x = x[(x >= (0 if to.is_unsigned_integer else -100)) & (x < 100)]
    got = run("Cast", {"x": x}, {"dtype": to})
    assert_values(got, x.astype(to.numpy), to)  # truncates toward zero; to bool is x != 0; ints wrap


@pytest.mark.parametrize("to", [d for d in tp.dtypes.ALL_DTYPES if not (d.is_complex or d.is_bool)],
                         ids=lambda d: d.name)
def test_cast_of_complex_to_a_real_dtype_is_refused(to):
    with pytest.raises(tp.DTypeError, match=rf"cannot cast complex64 to {to.name}: it would drop the "
                       r"imaginary part .* take tp.real\(x\) or tp.abs\(x\) first"):
        run("Cast", {"x": CAST_SOURCES["complex"].astype(np.complex64)}, {"dtype": to})


def test_cast_truncates_toward_zero_and_bool_is_nonzero():
    x = np.array([-2.7, -0.5, 0.0, 0.5, 2.7], np.float32)
    assert run("Cast", {"x": x}, {"dtype": "int32"}).tolist() == [-2, 0, 0, 0, 2]
    assert run("Cast", {"x": x}, {"dtype": tp.bool}).tolist() == [True, True, False, True, True]


@pytest.mark.parametrize("shape", [(), (0,), (2, 3)], ids=str)
def test_cast_edge_shapes(shape):
    run("Cast", {"x": sample(shape, tp.float64)}, {"dtype": tp.float32})


# -- Where --------------------------------------------------------------------------------------
#: one dtype of each kind and of each item size (the numpy kernel selects by bits)
WHERE_DTYPES = per_kind(tp.dtypes.ALL_DTYPES, also=(tp.float16, tp.float64, tp.complex128))


@pytest.mark.parametrize("shapes", [((), (), ()), ((3,), (3,), (3,)), ((2, 1), (1, 3), ()),
                                    ((0,), (1,), ()), ((2, 3), (3,), (2, 1))], ids=str)
@pytest.mark.parametrize("dtype", WHERE_DTYPES, ids=lambda d: d.name)
def test_where(dtype, shapes):
    c = sample(shapes[0], tp.bool_, seed=3)
    x = sample(shapes[1], dtype, seed=4)
    y = sample(shapes[2], dtype, seed=5)
    got = run("Where", {"condition": c, "x": x, "y": y})
    assert_values(got, np.where(c, x, y), dtype)


@pytest.mark.parametrize("shapes", [((48, 64),) * 3, ((48, 64), (64,), ()), ((48, 1), (1, 64), (48, 64)),
                                    ((), (48, 64), (48, 64)), ((48, 64), (), ())], ids=str)
@pytest.mark.parametrize("dtype", WHERE_DTYPES, ids=lambda d: d.name)
def test_where_passes_every_value_unchanged(dtype, shapes):
    """Bit for bit np.where's result on inputs large enough for the numpy kernel's branch-free
    select, with a random condition, and NaN, infinities and -0.0 among the floats."""
    c = sample(shapes[0], tp.bool_, seed=3)
    x = sample(shapes[1], dtype, seed=4)
    y = sample(shapes[2], dtype, seed=5)
    if dtype.is_floating:
        x.flat[:6] = [np.nan, -0.0, np.inf, -np.inf, 0.0, -np.nan]
        y.flat[-2:] = [-0.0, np.nan][-y.size:]
    got = run("Where", {"condition": c, "x": x, "y": y})
    want = np.where(c, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("zero", [0.0, -0.0], ids=["+0", "-0"])
@pytest.mark.parametrize("shapes", [((48, 64), (48, 64)), ((48, 1), (1, 64)), ((48, 64), (64,))], ids=str)
@pytest.mark.parametrize("dtype", WHERE_DTYPES, ids=lambda d: d.name)
def test_where_against_a_scalar_zero_passes_every_value_unchanged(dtype, shapes, zero):
    """A ReLU's gradient, where(x > 0, dy, 0): bit for bit np.where's result against a 0-d zero
    (the numpy kernel's shortcut for zero bits, and -0.0, whose bits are not zero)."""
    c = sample(shapes[0], tp.bool_, seed=3)
    x = sample(shapes[1], dtype, seed=4)
    y = np.array(zero).astype(dtype.numpy)
    if dtype.is_floating:
        x.flat[:6] = [np.nan, -0.0, np.inf, -np.inf, 0.0, -np.nan]
    got = run("Where", {"condition": c, "x": x, "y": y})
    want = np.where(c, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_where_of_a_condition_off_its_spec_is_no_wrong_answer():
    """A Dispatcher caller skips the spec's dtype check: a large integer condition still
    selects by truth (nonzero), as np.where does, never through wrong bits."""
    c = np.arange(2048) % 3
    x = sample((2048,), tp.float64, seed=4)
    got = tp.extend.Dispatcher("Where")((tp.asarray(c), tp.asarray(x), tp.asarray(np.zeros(2048))))
    np.testing.assert_array_equal(got.numpy(), np.where(c, x, 0.0))


# -- Clip ---------------------------------------------------------------------------------------
CLIP_BOUNDS = [(None, None), (-1.0, None), (None, 1.0), (-1.0, 1.0), (-1.5, 2.5), (1.0, 1.0), (-1e30, 1e30)]


@pytest.mark.parametrize("bounds", CLIP_BOUNDS, ids=str)
@pytest.mark.parametrize("dtype", accepted_dtypes("Clip"), ids=lambda d: d.name)
def test_clip(dtype, bounds):
    lo, hi = bounds
    x = sample((4, 5), dtype, -4, 4)
    got = run("Clip", {"x": x}, {"min": lo, "max": hi})
    if dtype.is_integer:  # the integers inside [min, max]
        lo = None if lo is None else np.ceil(max(lo, -2**62))
        hi = None if hi is None else np.floor(min(hi, 2**62))
    want = x if lo is None and hi is None else np.clip(_f64(x), lo, hi)
    assert_values(got, want, dtype)


def test_clip_of_integers_never_leaves_its_bounds():
    x = np.arange(-3, 4, dtype=np.int32)
    got = run("Clip", {"x": x}, {"min": -1.5, "max": 2.5})
    assert got.tolist() == [-1, -1, -1, 0, 1, 2, 2]


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_kernels_refuse_unbroadcastable_shapes(name):
    dtype = accepted_dtypes(name)[0]
    raises_for(name, tp.ShapeError, {"x": np.zeros((2, 3), dtype.numpy), "y": np.zeros((4,), dtype.numpy)},
               None, "(2, 3)", "(4,)", "cannot be broadcast")


@pytest.mark.parametrize("name", sorted(n for n in BINARY if len(accepted_dtypes(n)) > 1))
def test_binary_kernels_refuse_mixed_dtypes(name):
    a, b = accepted_dtypes(name)[:2]
    raises_for(name, tp.DTypeError, {"x": np.zeros(2, a.numpy), "y": np.zeros(2, b.numpy)},
               None, a.name, b.name, "share one dtype")


@pytest.mark.parametrize(("name", "dtype"), [  # (one refused dtype of each kind)
    pytest.param(n, d, id=f"{n}-{d.name}")
    for n in sorted(UNARY) for d in per_kind(d for d in tp.dtypes.ALL_DTYPES if d not in accepted_dtypes(n))
])
def test_unary_kernels_refuse_dtypes_outside_their_spec(name, dtype):
    raises_for(name, tp.DTypeError, {"x": np.zeros((2,), dtype.numpy)}, None, f"got {dtype.name}")


def test_where_needs_a_bool_condition():
    raises_for("Where", tp.DTypeError, {"condition": np.ones(2, np.int64), "x": np.ones(2), "y": np.ones(2)},
               None, "condition", "int64")


def test_clip_refuses_min_above_max():
    raises_for("Clip", tp.ShapeError, {"x": np.ones(2, np.float32)}, {"min": 2.0, "max": 1.0},
               "min (2.0) is greater than max (1.0)")


def test_cast_refuses_an_unknown_dtype():
    with pytest.raises(tp.TensorplugError, match="Cast"):
        tp.run_kernel("Cast", {"x": np.ones(2)}, {"dtype": "float128"})
