"""dtypes and type promotion: the Python Array API standard's dtypes and its promotion table
(checked against array_api_strict, the reference implementation), tensorplug's rules across
kinds (bool < integers < real floats < complex), and weak Python scalars."""

from __future__ import annotations

import itertools
import pickle

import array_api_strict as xp
import numpy as np
import pytest

import tensorplug as tp
from tensorplug.dtypes import ALL_DTYPES, STANDARD_DTYPES, as_dtype, result_type, scalar_dtype

ORDER = list(STANDARD_DTYPES)  # the standard's thirteen (tensorplug's half floats: below)
HALVES = [tp.float16, tp.bfloat16]
XP = {d: getattr(xp, d.name) for d in ORDER}
PAIRS = list(itertools.product(ORDER, ORDER))
KINDS = ["bool", "int", "uint", "float", "complex"]


def _ones(dtype):
    return tp.ones((2,), dtype=dtype)


def _ids(pairs):
    return [f"{a.name}-{b.name}" for a, b in pairs]


def test_the_dtypes_of_the_standard():
    assert [d.name for d in ORDER] == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                       "uint32", "uint64", "float32", "float64", "complex64", "complex128"]
    assert [d.kind for d in ORDER] == ["bool"] + ["int"] * 4 + ["uint"] * 4 + ["float"] * 2 + ["complex"] * 2
    assert [d.itemsize for d in ORDER] == [1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16]
    assert all(getattr(tp, d.name) is d for d in ORDER) and tp.bool is tp.bool_
    assert all(np.dtype(d.name) == d.numpy for d in ORDER)
    assert repr(tp.float32) == "tp.float32"
    assert tp.float64.is_floating and tp.int32.is_integer and tp.uint8.is_integer and tp.bool.is_bool
    assert tp.uint16.is_unsigned_integer and not tp.uint16.is_signed_integer and tp.int8.is_signed_integer
    assert tp.complex64.is_complex and tp.complex64.is_inexact and not tp.complex64.is_floating
    assert not tp.int64.is_floating and not tp.int64.is_inexact


def test_the_half_floats_beyond_the_standard():
    assert [d.name for d in ALL_DTYPES if d not in ORDER] == ["float16", "bfloat16"]
    assert all(d.kind == "float" and d.itemsize == 2 and d.is_floating for d in HALVES)
    assert tp.float16.numpy == np.float16 and tp.bfloat16.numpy.name == "bfloat16"
    assert as_dtype("bfloat16") is tp.bfloat16 and as_dtype(np.float16) is tp.float16
    assert tp.finfo(tp.bfloat16).eps == 2.0**-7 and tp.finfo(tp.float16).max == 65504.0
    assert "float16" not in tp.__array_namespace_info__().dtypes()  # the standard's dtypes only


@pytest.mark.parametrize("a", HALVES, ids=lambda d: d.name)
@pytest.mark.parametrize("b", ALL_DTYPES, ids=lambda d: d.name)
def test_half_floats_promote_as_jax_does(a, b):
    jnp = pytest.importorskip("jax.numpy")
    want = jnp.promote_types(a.name, b.name).name
    assert result_type(a, b).name == want and result_type(b, a).name == want
    assert (_ones(a) + _ones(b)).dtype.name == want


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_half_float_data_keeps_its_dtype(dtype):
    data = np.array([1.5, -2.25, 3.0], dtype=dtype.numpy)
    x = tp.asarray(data)
    assert x.dtype is dtype and (x * 2.0).dtype is dtype and (x + 1j).dtype is tp.complex64
    np.testing.assert_array_equal(np.asarray((x * 2).numpy()), data * 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_dtypes_pickle_to_themselves(dtype):
    assert pickle.loads(pickle.dumps(dtype)) is dtype


def test_as_dtype_accepts_names_numpy_dtypes_and_python_types():
    assert as_dtype("int32") is tp.int32 and as_dtype(np.float64) is tp.float64
    assert as_dtype(np.dtype("bool")) is tp.bool and as_dtype(tp.int64) is tp.int64
    assert as_dtype("uint8") is tp.uint8 and as_dtype(np.complex128) is tp.complex128
    assert as_dtype(float) is tp.float32 and as_dtype(int) is tp.int64 and as_dtype(bool) is tp.bool
    assert as_dtype(complex) is tp.complex64
    with pytest.raises(tp.DTypeError, match=r"dtype datetime64\[s\] is not supported by tensorplug; "
                       r"supported dtypes are bool, int8, .*, complex128\. Convert the data first"):
        as_dtype("datetime64[s]")
    with pytest.raises(TypeError, match=r"dtype str is not supported"):
        as_dtype(str)


def test_default_dtypes_of_python_and_numpy_data():
    assert tp.asarray(1.0).dtype is tp.float32
    assert tp.asarray([1, 2]).dtype is tp.int64
    assert tp.asarray(True).dtype is tp.bool
    assert tp.asarray(1 + 2j).dtype is tp.complex64
    assert tp.asarray(np.float64(1.0)).dtype is tp.float64  # numpy data keeps its dtype
    for name in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "complex128"):
        assert tp.asarray(np.array([1], dtype=name)).dtype is getattr(tp, name)
    assert tp.asarray(np.array([1], dtype=np.float16)).dtype is tp.float16
    assert tp.asarray([1, 2], dtype=tp.float64).dtype is tp.float64
    with pytest.raises(tp.DTypeError, match=r"dtype datetime64\[D\] is not supported by tensorplug"):
        tp.asarray(np.array(["2026-01-01"], dtype="datetime64[D]"))


# -- tensor with tensor ----------------------------------------------------------------------
def _cross_kind(a, b):
    """tensorplug's rule where the standard has none: the higher kind's dtype, or (uint64 with
    a signed integer) an error."""
    if {a.kind, b.kind} == {"int", "uint"}:
        return None
    return max((a, b), key=lambda d: KINDS.index(d.kind))


@pytest.mark.parametrize("a, b", PAIRS, ids=_ids(PAIRS))
def test_promotion_table(a, b):
    try:
        expected = getattr(tp, xp.result_type(XP[a], XP[b]).__str__().split(".")[-1])
    except TypeError:  # the standard leaves the pair open
        expected = _cross_kind(a, b)
    if expected is None:
        with pytest.raises(tp.DTypeError, match=r"no integer dtype holds every value of both"):
            result_type(a, b)
        return
    assert result_type(a, b) is expected
    assert result_type(b, a) is expected


SAME_KIND = [(a, b) for a, b in PAIRS if a.kind == b.kind]


@pytest.mark.parametrize("a, b", SAME_KIND, ids=_ids(SAME_KIND))
def test_promotion_within_a_kind_matches_array_api_strict(a, b):
    reference = xp.result_type(XP[a], XP[b])
    assert XP[result_type(a, b)] == reference
    x, y = xp.ones((2,), dtype=XP[a]), xp.ones((2,), dtype=XP[b])
    if a.kind == "bool":
        assert XP[tp.logical_and(_ones(a), _ones(b)).dtype] == xp.logical_and(x, y).dtype
    else:
        assert XP[(_ones(a) + _ones(b)).dtype] == (x + y).dtype


def test_array_api_strict_leaves_promotion_across_kinds_open():
    """Which is why tensorplug's table decides it (bool < integers < floats < complex, as JAX and
    PyTorch); integers of both signs the standard decides, up to uint64 with a signed one."""
    for a, b in PAIRS:
        signed_and_unsigned = {a.kind, b.kind} == {"int", "uint"}
        if a.kind != b.kind and not signed_and_unsigned and {a.kind, b.kind} != {"float", "complex"}:
            with pytest.raises(TypeError):
                xp.result_type(XP[a], XP[b])


PROMOTED = [p for p in PAIRS if p != (tp.bool, tp.bool) and _cross_kind(*p) is not None]


@pytest.mark.parametrize("a, b", PROMOTED, ids=_ids(PROMOTED))
def test_ops_promote_by_the_table(a, b):
    expected = result_type(a, b)
    assert (_ones(a) + _ones(b)).dtype is expected
    assert tp.multiply(_ones(a), _ones(b)).dtype is expected
    assert tp.maximum(_ones(a), _ones(b)).dtype is expected
    assert (_ones(a) < _ones(b)).dtype is tp.bool
    assert tp.where(_ones(tp.bool), _ones(a), _ones(b)).dtype is expected


def test_result_type_of_several_dtypes_and_of_none():
    assert result_type(tp.int32, tp.bool, tp.int64) is tp.int64
    assert result_type(tp.float32) is tp.float32
    with pytest.raises(tp.DTypeError, match="result_type needs at least one dtype"):
        result_type()


# -- weak Python scalars ---------------------------------------------------------------------
SCALARS = [True, 1, 1.5, 1.5 - 2j]


def _strict_scalar_result(dtype, scalar):
    """array_api_strict's dtype for `dtype` array (op) Python `scalar`, None where it refuses."""
    arr = xp.ones((2,), dtype=XP[dtype])
    try:
        return (arr & scalar if dtype is tp.bool else arr * scalar).dtype
    except TypeError:
        return None


WEAK_CASES = [(d, s) for d in ORDER for s in SCALARS if _strict_scalar_result(d, s) is not None]


def test_the_combinations_the_standard_defines_weak_scalars_for():
    assert [(d.name, type(s).__name__) for d, s in WEAK_CASES] == [("bool", "bool")] + [
        (d.name, "int") for d in tp.dtypes.INT_DTYPES] + [
        (d.name, kind) for d in tp.dtypes.INEXACT_DTYPES if d not in HALVES
        for kind in ("int", "float", "complex")]


@pytest.mark.parametrize("dtype, scalar", WEAK_CASES,
                         ids=[f"{d.name}-{type(s).__name__}" for d, s in WEAK_CASES])
def test_weak_scalars_match_array_api_strict(dtype, scalar):
    reference = _strict_scalar_result(dtype, scalar)
    assert XP[scalar_dtype(scalar, dtype)] == reference
    ours = (_ones(dtype) & scalar) if dtype is tp.bool else (_ones(dtype) * scalar)
    assert XP[ours.dtype] == reference
    ours_reflected = (scalar & _ones(dtype)) if dtype is tp.bool else (scalar * _ones(dtype))
    assert XP[ours_reflected.dtype] == reference


def test_weak_scalars_explicit_cases():
    i32, f32 = _ones(tp.int32), _ones(tp.float32)
    assert (i32 + 1).dtype is tp.int32  # the int scalar takes the tensor's dtype
    assert (1 + i32).dtype is tp.int32
    assert (i32 + 1.5).dtype is tp.float32  # a float scalar with an int tensor: the default float
    assert (i32 + 1.5).tolist() == [2.5, 2.5]
    assert (_ones(tp.int64) * 0.5).dtype is tp.float32
    assert (f32 + 1.0).dtype is tp.float32 and (f32 + 1).dtype is tp.float32
    assert (_ones(tp.float64) + 1.0).dtype is tp.float64
    assert (_ones(tp.bool) + 1).dtype is tp.int64  # bool meets an int: the default int
    assert (_ones(tp.bool) * 1.5).dtype is tp.float32
    assert (i32 + True).dtype is tp.int32
    assert (tp.asarray(2, dtype=tp.int32) ** 2).dtype is tp.int32
    assert (i32 / 2).dtype is tp.float32  # true division of ints: the default float


def test_scalar_dtype_refuses_non_numbers():
    assert scalar_dtype(3) is tp.int64 and scalar_dtype(3.0) is tp.float32 and scalar_dtype(False) is tp.bool
    with pytest.raises(tp.DTypeError, match=r"cannot use a str as a tensor value"):
        scalar_dtype("3", tp.float32)


COMPLEX_SCALARS = [0j, complex(0.0, -0.0), complex(-0.0, 0.0), 1 + 2j, complex(float("nan"), 1)]


@pytest.mark.parametrize("scalar", COMPLEX_SCALARS, ids=["0j", "0-0j", "-0+0j", "1+2j", "nan+1j"])
def test_complex_scalars_keep_their_value_and_signed_zeros(scalar):
    """A complex Python scalar meets a complex tensor exactly (twice: scalars may be cached)."""
    data = np.array([-0.0 - 0.0j, 1 - 1j], np.complex128)
    for _ in range(2):
        got, want = np.asarray((tp.asarray(data) * scalar).numpy()), data * scalar
        np.testing.assert_array_equal(got, want)
        for part in (np.real, np.imag):
            np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
@pytest.mark.parametrize("call, match", [
    (lambda x: tp.fft.fft(x), r"fft computes in float32 or float64 .*got {}; cast first, e.g. "
                              r"x.astype\(tp.float32\)"),
    (lambda x: tp.fft.rfft(x), r"rfft computes in float32 or float64 .*got {}"),
    (lambda x: tp.linalg.inv(x), r"inv computes in float32 or float64 .*got {}; cast first"),
], ids=["fft", "rfft", "inv"])
def test_half_floats_are_refused_where_the_libraries_compute_in_float32_or_wider(dtype, call, match):
    with pytest.raises(tp.DTypeError, match=match.format(dtype.name)):
        call(tp.ones((2, 2), dtype=dtype))
