"""Unusual and bad input found by exploratory testing of the public ops: each case was a raw
numpy/Python exception, a silently wrong value or a difference between the backends."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

BACKENDS = ("numpy", "jax")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "jax":
        pytest.importorskip("jax")
    with tp.backend_scope(request.param):
        yield request.param


# -- asarray: Python ints past int64 were wrapped silently; out of a dtype's range, an OverflowError

def test_asarray_refuses_a_python_int_past_int64(backend: str) -> None:
    with pytest.raises(tp.DTypeError,
                       match=r"asarray: the int 9223372036854775808 is past the range of int64.*tp.uint64"):
        tp.asarray(2**63)
    with pytest.raises(tp.DTypeError, match="asarray: the int 9223372036854775808"):
        tp.asarray([[2**63]])  # (numpy makes it uint64)
    assert int(tp.asarray(2**63, dtype=tp.uint64)) == 2**63
    assert int(tp.asarray(2**63 - 1)) == 2**63 - 1


# -- a Python scalar the tensor's dtype cannot hold: the message did not say which op refused it

@pytest.mark.parametrize(("call", "op"), [
    (lambda x: x + 300, "add"), (lambda x: 300 * x, "multiply"), (lambda x: tp.maximum(x, -200), "maximum"),
    (lambda x: x < 1000, "less"), (lambda x: tp.where(x > 0, x, 300), "where"),
    (lambda x: x & 1000, "bitwise_and"), (lambda x: tp.pow(x, 999), "pow")])
def test_a_python_scalar_too_big_for_the_dtype_names_the_op(backend: str, call, op: str) -> None:
    with pytest.raises(tp.DTypeError, match=rf"^{op}: the Python scalar -?\d+ does not fit in int8; cast"):
        call(tp.asarray([1, 2], dtype=tp.int8))


@pytest.mark.parametrize(("value", "dtype"), [(300, tp.uint8), ([1, -1], tp.uint8), (2**40, tp.int32),
                                              (2**63, tp.int64)])
def test_asarray_out_of_the_dtypes_range_is_a_dtype_error(backend: str, value: object,
                                                          dtype: tp.DType) -> None:
    with pytest.raises(tp.DTypeError, match=f"asarray: .* does not fit in {dtype.name}.*wider dtype"):
        tp.asarray(value, dtype=dtype)


def test_asarray_of_an_object_array_names_asarray(backend: str) -> None:
    with pytest.raises(tp.DTypeError, match="asarray: cannot convert 18446744073709551616: .*Python objects"):
        tp.asarray(2**64)


# -- pad: a constant the dtype cannot hold was wrapped on numpy and clamped on jax; an int
# constant went through float (2**53 + 1 became 2**53)

@pytest.mark.parametrize(("dtype", "value"), [(tp.int8, 300), (tp.uint8, -1), (tp.int32, float("nan"))])
def test_pad_refuses_a_constant_the_dtype_cannot_hold(backend: str, dtype: tp.DType, value: float) -> None:
    x = tp.asarray([1, 2], dtype=dtype)
    with pytest.raises(tp.DTypeError, match=f"pad: constant_values {value} does not fit in {dtype.name}"):
        tp.pad(x, 1, constant_values=value)


def test_pad_keeps_an_int_constant_exact(backend: str) -> None:
    out = tp.pad(tp.asarray([1]), 1, constant_values=2**53 + 1)
    assert np.asarray(out).tolist() == [2**53 + 1, 1, 2**53 + 1]
    assert np.asarray(tp.pad(tp.asarray([1.5]), (1, 0), constant_values=2)).tolist() == [2.0, 1.5]
    top = 2**64 - 1  # (as an int, past int64: the jax kernel could not convert it)
    padded = tp.pad(tp.asarray(np.array([1], np.uint64)), 1, constant_values=top)
    assert np.asarray(padded).tolist() == [top, 1, top]


# -- x.at[key]: errors named getitem, broadcast_to or asarray instead of the update; a value out
# of x's dtype's range was numpy's OverflowError; x.at[[]] (which addresses nothing) was refused

def test_at_set_of_a_value_the_dtype_cannot_hold_names_the_update(backend: str) -> None:
    x = tp.asarray([1, 2], dtype=tp.int8)
    with pytest.raises(tp.DTypeError, match=r"x.at\[0\].set: values 300 does not fit in int8"):
        x.at[0].set(300)
    with pytest.raises(tp.DTypeError, match=r"x.at\[0\].add: values nan does not fit in int8"):
        x.at[0].add(float("nan"))
    with pytest.raises(tp.DTypeError, match=r"x.at\[0\].set: values 1j is complex"):
        tp.asarray([1.0]).at[0].set(1j)


def test_at_errors_name_the_update(backend: str) -> None:
    x = tp.zeros((3, 4))
    with pytest.raises(tp.IndexOutOfRangeError, match=r"x.at\[5\].set: .*index 5 is out of range"):
        x.at[5].set(1.0)
    with pytest.raises(tp.ShapeError, match=r"x.at\[0\].max: values of shape \(3,\) do not broadcast to the "
                                            r"shape \(4,\) of x\[0\]"):
        x.at[0].max(tp.ones((3,)))


def test_at_with_an_empty_list_changes_nothing_as_getitem_selects_nothing(backend: str) -> None:
    x = tp.asarray([1.0, 2.0])
    assert x[[]].shape == (0,)
    np.testing.assert_array_equal(np.asarray(x.at[[]].set(5.0)), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(x.at[[]].add(tp.zeros((0,)))), [1.0, 2.0])


# -- logsumexp over an empty axis was refused by max ("max: cannot reduce over the empty axis");
# the sum of no exponentials is 0, so the answer is -inf (scipy's and jax's)

def test_logsumexp_over_an_empty_axis_is_minus_inf(backend: str) -> None:
    x = tp.zeros((0, 3))
    np.testing.assert_array_equal(np.asarray(tp.nn.logsumexp(x, axis=0)), [-np.inf] * 3)
    assert tp.nn.logsumexp(x, axis=1).shape == (0,)
    assert float(tp.nn.logsumexp(x)) == -np.inf
    assert tp.nn.logsumexp(x, axis=0, keepdims=True).shape == (1, 3)


# -- Svd / Svdvals on a matrix holding NaN: numpy's LAPACK call does not converge and the numpy
# backend raised a KernelError ("a bug in the kernel"); jax gives NaN, as the specs ask

def test_svd_of_a_matrix_with_nan_is_nan_for_that_matrix(backend: str) -> None:
    a = tp.asarray(np.array([[[np.nan, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]], np.float32))
    s = np.asarray(tp.linalg.svdvals(a))
    assert np.isnan(s[0]).all()
    np.testing.assert_allclose(s[1], [3.0, 2.0])
    u, s2, vh = tp.linalg.svd(a, full_matrices=False)
    assert (u.shape, s2.shape, vh.shape) == ((2, 2, 2), (2, 2), (2, 2, 2))
    assert np.isnan(np.asarray(u)[0]).all() and np.isnan(np.asarray(vh)[0]).all()
    np.testing.assert_array_equal(np.asarray(tp.linalg.matrix_rank(a)), [0, 2])


# -- norms over empty axes: ord=inf (a maximum) raised max's error, naming max; numpy gives 0.
# ord=-inf / -2 (a minimum of nothing) has no value: the error now names the norm

def test_largest_norms_of_empty_inputs_are_zero(backend: str) -> None:
    assert float(tp.linalg.vector_norm(tp.zeros((0,)), ord=float("inf"))) == 0.0
    assert tp.linalg.vector_norm(tp.zeros((2, 0)), ord=float("inf"), axis=1, keepdims=True).shape == (2, 1)
    for ord_ in (2, float("inf")):
        out = tp.linalg.matrix_norm(tp.zeros((2, 0, 3)), ord=ord_)
        np.testing.assert_array_equal(np.asarray(out), [0.0, 0.0])


@pytest.mark.parametrize(("call", "match"), [
    (lambda: tp.linalg.vector_norm(tp.zeros((0,)), ord=-float("inf")),
     "vector_norm: ord=-inf over axis None"),
    (lambda: tp.linalg.matrix_norm(tp.zeros((0, 3)), ord=-2),
     r"matrix_norm: ord=-2 of matrices of shape \(0, 3\)"),
])
def test_smallest_norms_of_empty_inputs_name_the_norm(backend: str, call: object, match: str) -> None:
    with pytest.raises(tp.ShapeError, match=match + ".*has no value"):
        call()  # type: ignore[operator]


# -- optimizers: a hyperparameter that is no number (a str, None, a list) raised float()'s
# ValueError or a comparison's TypeError; True was taken as 1.0 and inf as a learning rate; a
# (gradient, Variable) pair was a plain TypeError

@pytest.mark.parametrize(("make", "match"), [
    (lambda: tp.optimizers.SGD("0.1"), "SGD: learning_rate must be a finite real number, got '0.1'"),
    (lambda: tp.optimizers.SGD(None), "SGD: learning_rate must be a finite real number, got None"),
    (lambda: tp.optimizers.SGD(True), "SGD: learning_rate must be a finite real number, got True"),
    (lambda: tp.optimizers.SGD(float("inf")), "SGD: learning_rate must be a finite real number, got inf"),
    (lambda: tp.optimizers.SGD(0.1, momentum="0.9"), "SGD: momentum must be a finite real number"),
    (lambda: tp.optimizers.Adam(0.1, beta1=None), "Adam: beta1 must be a finite real number"),
    (lambda: tp.optimizers.Adam(0.1, epsilon=float("inf")), "Adam: epsilon must be a finite real number"),
    (lambda: tp.optimizers.AdamW(0.1, weight_decay="0"), "AdamW: weight_decay must be a finite real number"),
    (lambda: tp.optimizers.Adagrad(0.1, epsilon=[1e-7]), "Adagrad: epsilon must be a finite real number"),
    (lambda: tp.optimizers.Adadelta(1.0, rho="x"), "Adadelta: rho must be a finite real number"),
    (lambda: tp.optimizers.RMSprop(0.1, momentum=None), "RMSprop: momentum must be a finite real number"),
])
def test_optimizer_hyperparameters_must_be_numbers(backend: str, make: object, match: str) -> None:
    with pytest.raises(tp.HyperparameterError, match=match):
        make()  # type: ignore[operator]


def test_optimizers_still_take_numpy_and_tensor_scalars(backend: str) -> None:
    assert tp.optimizers.SGD(np.float32(0.5)).learning_rate == 0.5
    assert tp.optimizers.SGD(tp.asarray(0.5), momentum=np.float64(0.5)).momentum == 0.5


def test_apply_gradients_with_tf_ordered_pairs_says_to_swap(backend: str) -> None:
    v = tp.Variable(tp.ones((2,)))
    with pytest.raises(tp.ArgumentError, match=r"\(gradient, Variable\), TF's order: swap the two"):
        tp.optimizers.SGD(0.1).apply_gradients([(tp.ones((2,)), v)])


# -- tp.save: a folder as the path was os.replace's IsADirectoryError; a tree that holds itself
# was a RecursionError

def test_save_to_a_folder_names_the_fix(backend: str, tmp_path: object) -> None:
    with pytest.raises(tp.CheckpointError, match=r"tp.save: .* is a folder; give the path of a file in it"):
        tp.save(tmp_path, {"a": tp.ones((2,))})  # type: ignore[arg-type]
    assert not [p for p in tmp_path.iterdir()]  # type: ignore[attr-defined]  # (no temporary file left)


def test_save_refuses_a_tree_with_a_cycle(backend: str, tmp_path: object) -> None:
    tree: dict[str, object] = {"w": tp.ones((2,))}
    tree["self"] = [tree]
    with pytest.raises(tp.ArgumentError, match=r"tp.save: the dict at .* holds itself \(the tree has a"):
        tp.save(tmp_path / "c.safetensors", tree)  # type: ignore[operator]
    shared = [tp.ones((1,))]  # the same list twice is no cycle
    tp.save(tmp_path / "s.safetensors", {"a": shared, "b": shared})  # type: ignore[operator]
    assert tp.load(tmp_path / "s.safetensors")["b"][0].shape == (1,)  # type: ignore[operator]


# -- integer leaves: clip_by_norm / clip_by_global_norm cast the scale to the leaf's dtype (0:
# every leaf zeroed); an optimizer step on an integer parameter was lost (SGD: unchanged) or
# changed its dtype (Adam: float64, unchanged values)

@pytest.mark.parametrize("clip", [lambda t: tp.optimizers.clip_by_norm(t, 1.0),
                                  lambda t: tp.optimizers.clip_by_global_norm([t], 1.0)])
def test_clipping_by_norm_refuses_integer_leaves(backend: str, clip: object) -> None:
    with pytest.raises(tp.DTypeError, match=r"clip_by(_global)?_norm: a leaf has dtype int64.*astype"):
        clip(tp.asarray([3, 4]))  # type: ignore[operator]


@pytest.mark.parametrize("make", [lambda: tp.optimizers.SGD(0.1), lambda: tp.optimizers.Adam(0.1)])
def test_optimizers_refuse_integer_parameters(backend: str, make: object) -> None:
    opt = make()  # type: ignore[operator]
    with pytest.raises(tp.DTypeError, match=r"(SGD|Adam): a parameter of shape \(2,\) has dtype int64"):
        opt.update({"w": tp.asarray([1, 2])}, {"w": tp.asarray([1.0, 2.0])})
    v = tp.Variable(tp.asarray([1, 2]))
    with pytest.raises(tp.DTypeError, match="has dtype int64"):
        make().apply_gradients([(v, tp.asarray([1, 1]))])  # type: ignore[operator]


# -- argmax / argmin of a complex tensor: numpy's order (lexicographic) on the numpy backend, the
# spec's refusal on jax; sort's refusal of complex suggested a cast astype refuses

@pytest.mark.parametrize("op", [tp.argmax, tp.argmin])
def test_argmax_of_complex_is_refused_on_every_backend(backend: str, op: object) -> None:
    with pytest.raises(tp.DTypeError, match=rf"{op.__name__}: cannot order values of dtype complex64.*"  # type: ignore[attr-defined]
                                            r"tp.real\(x\) or tp.abs\(x\)"):
        op(tp.asarray([1 + 2j, 3j]))  # type: ignore[operator]


# -- integer pow with an exponent of 64 or more: jnp.power reads only the exponent's 6 lowest
# bits, so the jax backend gave 2 ** 64 == 1 (numpy, wrapping: 0) and 250 ** 250 != 0

@pytest.mark.parametrize("dtype", [tp.int64, tp.uint64, tp.int32, tp.uint8])
def test_integer_pow_wraps_for_large_exponents(backend: str, dtype: tp.DType) -> None:
    base = tp.asarray([2, 3, 250 if dtype is tp.uint8 else 10, 1], dtype=dtype)
    exponent = tp.asarray([64, 64, 250, 200], dtype=dtype)
    expected = np.power(np.asarray(base), np.asarray(exponent))  # (numpy wraps around)
    np.testing.assert_array_equal(np.asarray(tp.pow(base, exponent)), expected)
    assert int(np.asarray(tp.pow(base, exponent))[0]) == 0


# -- clip: int bounds of an integer tensor went through float (2**62 + 1 became 2**62, 2**53 + 1
# became 2**53); tensor bounds that do not broadcast were refused by the Maximum kernel

def test_clip_keeps_integer_bounds_exact(backend: str) -> None:
    x = tp.asarray([2**62 + 5, 2**53 + 3, -(2**62) - 7])
    np.testing.assert_array_equal(np.asarray(tp.clip(x, -(2**62) - 1, 2**62 + 1)),
                                  [2**62 + 1, 2**53 + 3, -(2**62) - 1])
    np.testing.assert_array_equal(np.asarray(tp.clip(x, None, 2**53 + 1))[:2], [2**53 + 1, 2**53 + 1])
    np.testing.assert_array_equal(np.asarray(tp.clip(tp.asarray([1, 5, 10]), 2.5, 7.5)), [3, 5, 7])


def test_clip_with_bounds_that_do_not_broadcast_names_clip(backend: str) -> None:
    with pytest.raises(tp.ShapeError, match=r"^clip: shapes \(2, 3\), \(2,\) cannot be broadcast"):
        tp.clip(tp.ones((2, 3)), tp.asarray([1.0, 2.0]), 3.0)


# -- one_hot: an on/off value the dtype cannot hold was wrapped on numpy and clamped on jax (300
# as int8: 44 vs 127; NaN as int32: -2**31 vs 0); int values went through float (2**62 + 1
# became 2**62)

@pytest.mark.parametrize(("dtype", "kw", "shown"), [(tp.int8, {"on_value": 300}, "on_value 300"),
                                                    (tp.uint8, {"off_value": -1}, "off_value -1"),
                                                    (tp.int32, {"on_value": float("nan")}, "on_value nan")])
def test_one_hot_refuses_values_the_dtype_cannot_hold(backend: str, dtype: tp.DType, kw: dict[str, float],
                                                     shown: str) -> None:
    with pytest.raises(tp.DTypeError, match=f"one_hot: {shown} does not fit in {dtype.name}"):
        tp.nn.one_hot(tp.asarray([1]), 2, dtype=dtype, **kw)


def test_one_hot_keeps_int_values_exact(backend: str) -> None:
    out = tp.nn.one_hot(tp.asarray([1]), 2, dtype=tp.int64, on_value=2**62 + 1, off_value=-(2**62) - 1)
    assert np.asarray(out).tolist() == [[-(2**62) - 1, 2**62 + 1]]
    top = tp.nn.one_hot(tp.asarray([0]), 2, dtype=tp.uint64, on_value=2**64 - 1)
    assert np.asarray(top).tolist() == [[2**64 - 1, 0]]


# -- rotate_with_offset of a uint8 image with a fill_value out of its range wrapped (300 -> 44)

def test_rotate_with_offset_refuses_a_fill_the_image_dtype_cannot_hold(backend: str) -> None:
    image = tp.asarray(np.arange(16, dtype=np.uint8).reshape(1, 4, 4, 1))
    with pytest.raises(tp.DTypeError, match="rotate_with_offset: fill_value 300.0 does not fit in uint8"):
        tp.image.rotate_with_offset(image, 3.0, fill_value=300)
    assert tp.image.rotate_with_offset(image, 3.0, fill_value=255).dtype == tp.uint8


# -- asarray of a big-endian numpy array (data read from a file) was refused as "dtype int32 is
# not supported by tensorplug; supported dtypes are ..., int32, ..."; other refused numpy dtypes
# did not name asarray

def test_asarray_takes_big_endian_arrays(backend: str) -> None:
    x = tp.asarray(np.arange(3, dtype=">i4"))
    assert x.dtype == tp.int32
    np.testing.assert_array_equal(np.asarray(x + 1), [1, 2, 3])
    assert tp.asarray(np.array([1.5], dtype=">f8")).dtype == tp.float64
    with pytest.raises(tp.DTypeError, match="^asarray: dtype datetime64"):
        tp.asarray(np.datetime64("2020-01-01"))


# -- linspace with an infinite end: the numpy backend's first value was 0 * inf + start = NaN,
# the jax backend's the start (the op promises start exactly)

def test_linspace_starts_at_start_with_an_infinite_step(backend: str) -> None:
    np.testing.assert_array_equal(np.asarray(tp.linspace(0, float("inf"), 3)), [0.0, np.inf, np.inf])
    assert float(tp.linspace(0, float("nan"), 3)[0]) == 0.0


# -- a transform length or a sample count past int64's elements aborted the process on jax (XLA:
# "overflow in static extent product"): the fft family and categorical did not check the size

@pytest.mark.parametrize("call", [
    lambda: tp.fft.fft(tp.zeros((2,)), n=2**62),
    lambda: tp.fft.irfft(tp.zeros((2,), dtype=tp.complex64), n=2**62),
    lambda: tp.fft.rfftn(tp.zeros((2, 2)), s=(2**31, 2**31), axes=(0, 1)),
    lambda: tp.fft.ihfft(tp.zeros((2,)), n=2**62),
    lambda: tp.random.categorical(tp.zeros((2,)), 2**62, seed=0),
], ids=["fft", "irfft", "rfftn", "ihfft", "categorical"])
def test_huge_transform_lengths_and_sample_counts_are_refused(backend: str, call: object) -> None:
    with pytest.raises(tp.ShapeError, match=r"^(i?r?h?fftn?|categorical): shape .* elements, past backend"):
        call()  # type: ignore[operator]


# -- segment reductions with a huge num_segments (or id, when num_segments is None) aborted the
# process on jax (XLA's 'overflow in static extent product')

@pytest.mark.parametrize("call", [
    lambda: tp.segment_sum(tp.zeros((1,)), tp.asarray([0]), 2**62),
    lambda: tp.segment_max(tp.zeros((1, 3)), tp.asarray([0]), 2**61),
    lambda: tp.segment_sum(tp.zeros((1,)), tp.asarray([2**62])),
    lambda: tp.sparse.segment_sum(tp.zeros((1,)), tp.asarray([0]), tp.asarray([0]), 2**62),
    lambda: tp.sparse.segment_mean(tp.zeros((1,)), tp.asarray([0]), tp.asarray([2**62])),
], ids=["segment_sum", "segment_max", "segment_sum_ids", "sparse_segment_sum", "sparse_segment_mean_ids"])
def test_huge_segment_counts_are_refused(backend: str, call: object) -> None:
    with pytest.raises(tp.ShapeError, match=r"^segment_(sum|max|mean): shape .* elements, past backend"):
        call()  # type: ignore[operator]


# -- fill_empty_rows with a huge dense_shape: a KernelError blaming the kernel (numpy's 'array is
# too big') on both backends

def test_fill_empty_rows_with_huge_dense_shape_is_refused(backend: str) -> None:
    with pytest.raises(tp.ShapeError, match=r"^fill_empty_rows: shape .* elements, past backend"):
        tp.sparse.fill_empty_rows(tp.asarray([[0, 0]]), tp.asarray([1.0]), (2**62, 2), 0.0)


# -- var / std of a complex tensor summed d * d instead of |d|^2: var([1j, 1]) was -0.5j (numpy:
# 0.5); mean / var of float16 summed in float16: the mean of 100 values of 60000 was inf

def test_var_of_complex_is_the_real_mean_squared_modulus(backend: str) -> None:
    x = np.array([[1j, 1], [2, 3j]], np.complex64)
    out = tp.var(tp.asarray(x), axis=1)
    assert out.dtype == tp.float32
    np.testing.assert_allclose(np.asarray(out), np.var(x, axis=1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tp.std(tp.asarray(x))), np.std(x), rtol=1e-6)


def test_mean_and_var_of_float16_do_not_overflow_in_the_sum(backend: str) -> None:
    x = np.full(100, 60000, np.float16)
    out = tp.mean(tp.asarray(x))
    assert out.dtype == tp.float16 and float(out) == float(np.mean(x)) == 60000.0
    y = np.array([0, 0, 0, 512], np.float16)  # (a square past float16's 65504; the variance 49152)
    assert float(tp.var(tp.asarray(y))) == float(np.var(y.astype(np.float32))) == 49152.0


# -- a Python -0.0 took the cached +0.0 scalar on backends that reuse scalars (numpy)

def test_a_negative_zero_scalar_keeps_its_sign(backend: str) -> None:
    x = tp.ones(2)
    assert not np.signbit((x * 0.0).numpy()).any()  # (+0.0 is cached first)
    assert np.signbit((x * -0.0).numpy()).all()
    assert np.signbit((tp.asarray([-1.0]) * 0.0).numpy()).all()
    assert not np.signbit((x * 0.0).numpy()).any()
