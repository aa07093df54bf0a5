"""tp.random's keys (key, split, fold_in, bits) and the distributions drawn from them: bit for
bit JAX's threefry2x32 on both backends, the distributions JAX's to float rounding, keys under
tp.vmap and tp.jit, and the errors for bad keys and arguments."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import install_toy_backend

#: (id, tensorplug call, jax.random call, needs 64-bit jax): raw bits, compared exactly
KEY_CASES = [
    ("key_0", lambda r, k: r.key(0), lambda r, k: r.PRNGKey(0), False),
    ("key_42", lambda r, k: r.key(42), lambda r, k: r.PRNGKey(42), False),
    ("key_64bit", lambda r, k: r.key(2**40 + 7), lambda r, k: r.PRNGKey(2**40 + 7), True),
    ("key_negative", lambda r, k: r.key(-3), lambda r, k: r.PRNGKey(-3), True),
    ("split", lambda r, k: r.split(k), None, False),
    ("split_5", lambda r, k: r.split(k, 5), None, False),
    ("split_shape", lambda r, k: r.split(k, (2, 3)), None, False),
    ("fold_in", lambda r, k: r.fold_in(k, 7), None, False),
    ("fold_in_max", lambda r, k: r.fold_in(k, 2**32 - 1), None, False),
    ("bits_scalar", lambda r, k: r.bits(k), None, False),
    ("bits_2x3", lambda r, k: r.bits(k, (2, 3)), None, False),
    ("bits_uint8", lambda r, k: r.bits(k, (7,), "uint8"), None, False),
    ("bits_uint16", lambda r, k: r.bits(k, (7,), "uint16"), None, False),
    ("bits_uint64", lambda r, k: r.bits(k, (5,), "uint64"), None, True),
    ("bits_of_split", lambda r, k: r.bits(r.split(k)[1], (4,)), None, False),
]

#: (id, tensorplug call, jax.random call, rtol, atol, needs 64-bit jax)
DIST_CASES = [
    ("uniform", lambda r, k: r.uniform(k, (500,)), None, 0, 0, False),
    ("uniform_bounds", lambda r, k: r.uniform(k, (500,), minval=-2.5, maxval=3.0), None, 0, 0, False),
    ("uniform_f16", lambda r, k: r.uniform(k, (50,), "float16"), None, 0, 0, False),
    ("uniform_bf16", lambda r, k: r.uniform(k, (50,), "bfloat16"), None, 0, 0, False),
    ("uniform_f64", lambda r, k: r.uniform(k, (500,), "float64"), None, 0, 0, True),
    ("uniform_f64_bounds", lambda r, k: r.uniform(k, (500,), "float64", -2.5, 3.0), None, 0, 0, True),
    ("uniform_f64_far_bounds", lambda r, k: r.uniform(k, (500,), "float64", -1e6, 1e-3), None, 0, 0, True),
    ("normal", lambda r, k: r.normal(k, (500,)), None, 3e-7, 1e-7, False),
    ("normal_f64", lambda r, k: r.normal(k, (500,), "float64"), None, 1e-14, 1e-15, True),
    ("normal_bf16", lambda r, k: r.normal(k, (100,), "bfloat16"), None, 8e-3, 1e-2, False),
    ("exponential", lambda r, k: r.exponential(k, (500,)), None, 1e-6, 0, False),
    ("gumbel", lambda r, k: r.gumbel(k, (500,)), None, 1e-5, 1e-6, False),
    ("truncated_normal", lambda r, k: r.truncated_normal(k, -1.5, 2.0, (500,)), None, 1e-6, 1e-7, False),
    ("truncated_normal_f16", lambda r, k: r.truncated_normal(k, -1.0, 1.5, (100,), "float16"),
     None, 1e-3, 1e-3, False),
    ("gumbel_bf16", lambda r, k: r.gumbel(k, (100,), "bfloat16"), None, 8e-3, 1e-2, False),
    ("bernoulli", lambda r, k: r.bernoulli(k, 0.3, (500,)),
     lambda r, k: r.bernoulli(k, np.float32(0.3), (500,)), 0, 0, False),
    ("randint", lambda r, k: r.randint(k, (500,), -5, 100, "int32"), None, 0, 0, False),
    ("randint_int64", lambda r, k: r.randint(k, (500,), -(2**40), 2**40, "int64"), None, 0, 0, True),
    ("randint_uint8", lambda r, k: r.randint(k, (500,), 0, 256, "uint8"), None, 0, 0, False),
    ("randint_full_int32", lambda r, k: r.randint(k, (50,), -(2**31), 2**31 - 1, "int32"), None, 0, 0, False),
    ("randint_tensor_bounds", lambda r, k: r.randint(k, (3, 3), _lows(r), _highs(r), "int32"),
     None, 0, 0, False),
    ("randint_tensor_bounds_uint8", lambda r, k: r.randint(k, (3, 3), 0, _highs(r) * 3, "uint8"),
     None, 0, 0, False),
    ("randint_empty_range", lambda r, k: r.randint(k, (5,), 3, 3, "int32"), None, 0, 0, False),
    ("categorical", lambda r, k: r.categorical(k, _logits(r)), None, 0, 0, False),
    ("categorical_axis0_shape", lambda r, k: r.categorical(k, _logits(r), axis=0, shape=(3, 7)),
     None, 0, 0, False),
    ("permutation", lambda r, k: r.permutation(k, 10), None, 0, 0, False),
    ("permutation_two_rounds", lambda r, k: r.permutation(k, 3000), None, 0, 0, False),
    ("permutation_axis1", lambda r, k: r.permutation(k, _table(r), axis=1), None, 0, 0, False),
    ("permutation_independent", lambda r, k: r.permutation(k, _table(r), axis=1, independent=True),
     None, 0, 0, False),
    ("choice", lambda r, k: r.choice(k, 10, (6,)), None, 0, 0, True),
    ("choice_rows", lambda r, k: r.choice(k, _table(r), (2, 3)), None, 0, 0, True),
    ("choice_no_replace", lambda r, k: r.choice(k, _table(r), (3,), replace=False, axis=1),
     None, 0, 0, False),
    ("choice_p", lambda r, k: r.choice(k, 5, (20,), p=_probs(r)), None, 0, 0, False),
    ("choice_p_no_replace", lambda r, k: r.choice(k, 5, (3,), replace=False, p=_probs(r)), None, 0, 0, False),
]


def _logits(r):
    x = np.random.default_rng(0).normal(size=(4, 7)).astype(np.float32)
    return tp.asarray(x) if r is tp.random else x


def _lows(r):
    x = np.array([-5, 0, 10], np.int32)
    return tp.asarray(x) if r is tp.random else x


def _highs(r):
    x = np.array([[5], [100], [11]], np.int32)
    return tp.asarray(x) if r is tp.random else x


def _probs(r):
    p = np.array([0.1, 0.4, 0.2, 0.0, 0.3], np.float32)
    return tp.asarray(p) if r is tp.random else p


def _table(r):
    x = np.arange(24).reshape(4, 6)
    return tp.asarray(x) if r is tp.random else x


def _with_jax(needs_x64):
    jax = pytest.importorskip("jax")
    return jax, jax.enable_x64(True) if needs_x64 else jax.enable_x64(False)


def test_uint32_ops_wrap_as_threefry_needs(backend):
    """The ops threefry is written with: uint32 adds wrap modulo 2**32, shifts drop bits."""
    x = tp.asarray(np.array([0xFFFFFFFF, 0x80000001], np.uint32))
    assert (x + x).dtype is tp.uint32 and (x + 1).dtype is tp.uint32
    np.testing.assert_array_equal(np.asarray(x + x), [0xFFFFFFFE, 2])
    np.testing.assert_array_equal(np.asarray(x + 1), [0, 0x80000002])
    np.testing.assert_array_equal(np.asarray(tp.bitwise_left_shift(x, 3)), [0xFFFFFFF8, 8])
    np.testing.assert_array_equal(np.asarray(tp.bitwise_right_shift(x, 31)), [1, 1])


def test_known_bits_without_jax(backend):
    """JAX 0.10's own answers (jax.random with PRNGKey(0)), kept here for runs without jax."""
    k = tp.random.key(0)
    np.testing.assert_array_equal(np.asarray(tp.random.split(k)),
                                  [[1797259609, 2579123966], [928981903, 3453687069]])
    np.testing.assert_array_equal(np.asarray(tp.random.fold_in(k, 3)), [2467461003, 3840466878])
    np.testing.assert_array_equal(np.asarray(tp.random.bits(k, (5,))),
                                  [4070199207, 4202968722, 1427181096, 2012915765, 2447653815])


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
@pytest.mark.parametrize("case", KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_keys_are_jax_bits(backend, case):
    _, ours, theirs, x64 = case
    jax, mode = _with_jax(x64)
    with mode:
        want = np.asarray((theirs or ours)(jax.random, jax.random.PRNGKey(42)))
    got = ours(tp.random, tp.random.key(42))
    assert got.dtype.name == str(want.dtype) and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
@pytest.mark.parametrize("case", DIST_CASES, ids=[c[0] for c in DIST_CASES])
def test_distributions_are_jax_numbers(backend, case):
    _, ours, theirs, rtol, atol, x64 = case
    jax, mode = _with_jax(x64)
    with mode:
        want = np.asarray((theirs or ours)(jax.random, jax.random.PRNGKey(7)))
    got = ours(tp.random, tp.random.key(7))
    assert got.shape == want.shape
    assert got.dtype.kind == tp.dtypes.from_numpy_dtype(want.dtype).kind
    if rtol or atol:
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(np.asarray(got), want.astype(got.dtype.numpy))


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_is_xlas_to_two_ulps(backend, dtype):
    """The kernel Erfinv (numpy: XLA's polynomials fused; jax: lax.erf_inv) on the whole range,
    its tails, +-1 (+-inf), 0 and -0, beyond +-1 and nan (nan)."""
    jax = pytest.importorskip("jax")
    edges = [0.0, -0.0, 1.0, -1.0, 1.5, -3.0, np.nan]
    x = np.concatenate([np.linspace(-1, 1, 2001), 1 - np.logspace(-7, -1, 200),
                        -1 + np.logspace(-15, -1, 200), edges]).astype(dtype)
    with jax.enable_x64(True):
        want = np.asarray(jax.lax.erf_inv(x))
    got = np.asarray(tp.erfinv(tp.asarray(x)))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])  # +-inf at +-1, nan beyond
    np.testing.assert_array_equal(np.signbit(got[-7:-5]), [False, True])
    ulps = np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
    assert ulps.max() <= (2 if dtype == "float32" else 32)  # (float64: numpy's log1p)


def _alphas(r):
    a = np.array([[0.05], [2.5]], np.float32)  # (small a: boosted, many values near 0)
    return tp.asarray(a) if r is tp.random else a


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
def test_gamma_is_jax_numbers():
    """On numpy only: JAX compiles its while loops for each call (~2 s each); the jax backend
    runs the same ops."""
    jax = pytest.importorskip("jax")
    with jax.enable_x64(False):
        want = np.asarray(jax.random.gamma(jax.random.PRNGKey(7), _alphas(jax.random), (2, 200)))
    got = np.asarray(tp.random.gamma(tp.random.key(7), _alphas(tp.random), (2, 200)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-30)


def test_loggamma_and_beta_as_jax_defines_them():
    k = tp.random.key(3)
    logs = np.asarray(tp.random.loggamma(k, 0.7, (50,)))
    np.testing.assert_allclose(np.exp(logs), np.asarray(tp.random.gamma(k, 0.7, (50,))), rtol=1e-5)
    ka, kb = tp.random.split(k)
    la, lb = np.asarray(tp.random.loggamma(ka, 0.5, (50,))), np.asarray(tp.random.loggamma(kb, 2.0, (50,)))
    top = np.maximum(la, lb)
    want = np.exp(la - top) / (np.exp(la - top) + np.exp(lb - top))
    np.testing.assert_allclose(np.asarray(tp.random.beta(k, 0.5, 2.0, (50,))), want, rtol=1e-6)


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
def test_same_bits_on_both_backends():
    pytest.importorskip("jax")
    draws = {}
    for name in ("numpy", "jax"):
        tp.set_backend(name)
        k = tp.random.fold_in(tp.random.split(tp.random.key(5), 3)[2], 11)
        draws[name] = [np.asarray(x) for x in (k, tp.random.bits(k, (9,)), tp.random.uniform(k, (9,)),
                                               tp.random.randint(k, (9,), 0, 10))]
    for a, b in zip(draws["numpy"], draws["jax"]):
        np.testing.assert_array_equal(a, b)


def test_a_third_party_backend_gives_the_same_numbers():
    def draws():
        k = tp.random.fold_in(tp.random.split(tp.random.key(8))[1], 3)
        return [np.asarray(x) for x in (k, tp.random.bits(k, (6,), "uint64"), tp.random.normal(k, (6,)),
                                        tp.random.permutation(k, 7), tp.random.randint(k, (6,), -3, 9))]

    want = draws()
    install_toy_backend("toy")
    tp.set_backend("toy")
    got = draws()
    assert tp.random.key(0)._backend.calls["BitwiseXor"] > 0  # threefry ran on the toy backend
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_batched_keys_act_per_key(backend):
    keys = tp.random.split(tp.random.key(1), 3)
    got = np.asarray(tp.random.uniform(keys, (4,)))
    want = np.stack([np.asarray(tp.random.uniform(keys[i], (4,))) for i in range(3)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.jax  # (compares with jax itself: not in make test-quick)
def test_vmap_over_split_keys_is_jax_vmap(backend):
    jax = pytest.importorskip("jax")
    keys = tp.random.split(tp.random.key(9), 4)
    got = tp.vmap(lambda k: tp.random.normal(k, (3,)) + tp.astype(tp.random.bits(k), tp.float32))(keys)
    want = jax.vmap(lambda k: jax.random.normal(k, (3,)) + jax.random.bits(k).astype("float32"))(
        jax.random.split(jax.random.PRNGKey(9), 4))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=2e-5)
    rows = np.asarray(got)
    assert len({tuple(r) for r in rows}) == 4  # independent streams


def test_jit_takes_a_new_key_each_call_with_one_trace(backend):
    traces = []

    def draw(k):
        traces.append(1)
        return tp.random.uniform(k, (5,), "float64", -2.5, 3.0), tp.random.split(k)  # (XLA fuses: the same)

    jitted = tp.jit(draw)
    k = tp.random.key(0)
    seen = []
    for _ in range(3):
        u, ks = jitted(k)
        eager_u, eager_ks = draw(k)
        np.testing.assert_array_equal(np.asarray(u), np.asarray(eager_u))
        np.testing.assert_array_equal(np.asarray(ks), np.asarray(eager_ks))
        seen.append(tuple(np.asarray(u)))
        k = ks[0]
    assert len(set(seen)) == 3
    assert len(traces) == 1 + 3  # one trace, then the three eager calls above


def test_fold_in_a_step_counter_under_jit(backend):
    step_key = tp.jit(lambda k, step: tp.random.fold_in(k, step))
    k = tp.random.key(4)
    for step in (0, 1, 2**32 - 1):
        got = step_key(k, tp.asarray(np.uint32(step)))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(tp.random.fold_in(k, step)))


def test_grad_through_a_sample_scaled_by_a_parameter(backend):
    k = tp.random.key(2)
    g = tp.grad(lambda s: tp.sum(tp.random.normal(k, (4,)) * s))(tp.asarray(2.0))
    np.testing.assert_allclose(float(g), float(tp.sum(tp.random.normal(k, (4,)))), rtol=1e-6)


def test_seed_form_unchanged_and_not_mixed_with_a_key(backend):
    a = tp.random.uniform((2, 3), seed=0, low=1.0, high=2.0)
    assert a.shape == (2, 3) and float(tp.min(a)) >= 1.0
    assert tp.random.normal(4, seed=1, dtype="float64").dtype is tp.float64
    with pytest.raises(tp.ArgumentError, match=r"uniform: got a key and seed=0; pass one of them"):
        tp.random.uniform(tp.random.key(0), (2,), seed=0)
    with pytest.raises(tp.ArgumentError, match=r"uniform: low and high are the seed form's arguments; "
                                               r"with a key, pass minval and maxval"):
        tp.random.uniform(tp.random.key(0), (2,), low=1.0, high=2.0)
    with pytest.raises(tp.ArgumentError, match=r"normal: mean and stddev are the seed form's arguments; "
                                               r"with a key, scale the draw"):
        tp.random.normal(tp.random.key(0), (2,), stddev=3.0)
    with pytest.raises(tp.ArgumentError, match=r"normal: the shape comes first with a seed"):
        tp.random.normal((2,), (3,), seed=0)
    with pytest.raises(tp.ArgumentError, match=r"categorical: axis and shape are the key form's"):
        tp.random.categorical(tp.zeros((3,)), 2, 0, seed=0)
    with pytest.raises(tp.ArgumentError, match=r"categorical: pass a key first.*or a seed.*got no seed and a "
                                               r"Tensor of shape \(3,\) and dtype float32 first"):
        tp.random.categorical(tp.zeros((3,)), 2)
    with pytest.raises(tp.DTypeError, match=r"uniform: seed must be an int, got None.*or a key first: "
                                            r"tp.random.uniform\(tp.random.key\(0\), \(2, 3\)\)"):
        tp.random.uniform((2, 3))


BAD = [
    ("split", lambda: tp.random.split(tp.zeros((2,)), 2), tp.DTypeError,
     r"split: key must be a uint32 tensor of shape \(2,\).*got dtype float32.*tp.random.key\(seed\)"),
    ("bits_shape", lambda: tp.random.bits(tp.asarray(np.zeros(3, np.uint32))), tp.ShapeError,
     r"bits: key must be a uint32 tensor of shape \(2,\).*shape \(3,\)"),
    ("fold_in_not_tensor", lambda: tp.random.fold_in([0, 1], 3), tp.ArgumentError,
     r"fold_in: key must be a key tensor, got \[0, 1\]; make one with tp.random.key"),
    ("split_num", lambda: tp.random.split(tp.random.key(0), 0), tp.ShapeError,
     r"split: num must be >= 1, got 0"),
    ("fold_in_float", lambda: tp.random.fold_in(tp.random.key(0), 1.5), tp.ArgumentError,
     r"fold_in: data must be an int, got 1.5"),
    ("fold_in_range", lambda: tp.random.fold_in(tp.random.key(0), -1), tp.ShapeError,
     r"fold_in: data must be in \[0, 2\*\*32\), got -1; pass data % 2\*\*32"),
    ("fold_in_float_tensor", lambda: tp.random.fold_in(tp.random.key(0), tp.asarray(1.0)), tp.DTypeError,
     r"fold_in: data must be an int or a 0-d integer tensor, got dtype float32"),
    ("bits_float", lambda: tp.random.bits(tp.random.key(0), (2,), tp.float32), tp.DTypeError,
     r"bits: dtype must be an unsigned integer dtype.*got float32; for floats use tp.random.uniform"),
    ("key_seed", lambda: tp.random.key(2**64), tp.ShapeError, r"key: seed must fit in 64 bits"),
    ("key_float", lambda: tp.random.key(0.5), tp.ArgumentError, r"key: seed must be an int, got 0.5"),
    ("uniform_int", lambda: tp.random.uniform(tp.random.key(0), (2,), tp.int32), tp.DTypeError,
     r"uniform: dtype must be a real floating dtype.*got int32"),
    ("randint_float", lambda: tp.random.randint(tp.random.key(0), (2,), 0, 5, tp.float32), tp.DTypeError,
     r"randint: dtype must be an integer dtype, got float32"),
    ("bernoulli_int", lambda: tp.random.bernoulli(tp.random.key(0), tp.asarray([1, 0])), tp.DTypeError,
     r"bernoulli: p must be a float or a floating tensor, got dtype int64"),
    ("truncated_bounds", lambda: tp.random.truncated_normal(tp.random.key(0), 1.0, -1.0), tp.ShapeError,
     r"truncated_normal: lower must be below upper, got lower=1.0 and upper=-1.0"),
    ("categorical_axis", lambda: tp.random.categorical(tp.random.key(0), tp.zeros((2, 3)), axis=2),
     tp.ShapeError, r"categorical: axis 2 is out of range for logits of shape \(2, 3\)"),
    ("permutation_batch", lambda: tp.random.permutation(tp.random.split(tp.random.key(0)), 4), tp.ShapeError,
     r"permutation: key must be one key of shape \(2,\), got shape \(2, 2\); use tp.vmap"),
    ("gamma_shape", lambda: tp.random.gamma(tp.random.key(0), tp.ones((3,)), (2,)), tp.ShapeError,
     r"gamma: a of shape \(3,\) does not broadcast to shape \(2,\)"),
    ("beta_dtype", lambda: tp.random.beta(tp.random.key(0), 1.0, 1.0, (2,), tp.int32), tp.DTypeError,
     r"beta: dtype must be a real floating dtype"),
    ("randint_bounds_shape", lambda: tp.random.randint(tp.random.key(0), (2,), tp.zeros((3,), dtype="int8"),
                                                       5),
     tp.ShapeError, r"randint: minval of shape \(3,\) and maxval of shape \(\) must broadcast to shape "
                    r"\(2,\)"),
    ("randint_bool_bounds", lambda: tp.random.randint(tp.random.key(0), (2,), tp.asarray([True]), 5),
     tp.DTypeError, r"randint: minval must hold integers, got dtype bool"),
    ("choice_too_many", lambda: tp.random.choice(tp.random.key(0), 3, (4,), replace=False), tp.ShapeError,
     r"choice: cannot take 4 draws from 3 elements without replacement; pass replace=True"),
    ("choice_p_shape", lambda: tp.random.choice(tp.random.key(0), 3, (2,), p=tp.ones((4,))), tp.ShapeError,
     r"choice: p must be None or of shape \(3,\), a's length along axis 0; got shape \(4,\)"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input_names_the_function_and_the_fix(backend, case):
    _, call, error, message = case
    with pytest.raises(error, match=message):
        call()
