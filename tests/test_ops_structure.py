"""The ops of the layout and structure kernels against numpy, jax and TF's definitions:
tp.split, tp.pad's mirror modes, tp.einsum, tp.top_k, tp.broadcast_shapes, tp.broadcast_args,
tp.linalg.tensor_diag and band_part, tp.nn's depth_to_space, space_to_depth,
space_to_batch_nd and batch_to_space_nd; bad arguments named at the op."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp

X = np.arange(24.0).reshape(2, 3, 4)


def values(t):
    return [np.asarray(p.numpy()) for p in t]


@pytest.mark.parametrize("how,axis", [(2, 0), (3, 1), ([1, 3], 2), ([-1], 2), ([0, 0, 2], 1), ([2, 9], 1),
                                      (1, -1)])
def test_split_is_numpys(how, axis):
    got = values(tp.split(X, how, axis=axis))
    want = np.split(X, how, axis=axis)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("call,error,match", [
    (lambda: tp.split(X, 3, axis=0), tp.ShapeError, r"split: axis 0 of size 2 does not divide into 3"),
    (lambda: tp.split(X, [3, 1], axis=2), tp.ShapeError, r"split: the indices \[3, 1\] must be increasing"),
    (lambda: tp.split(tp.asarray(1.0), 1), tp.ShapeError, r"split: x is 0-d"),
    (lambda: tp.split(X, 0), tp.ShapeError, r"split: indices_or_sections must be >= 1"),
    (lambda: tp.split(X, 1.5), tp.ArgumentError, r"split: indices_or_sections must be an int"),
])
def test_split_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("width", [1, (1, 0), ((1, 0), (2, 1), (0, 3)), ((5, 2), (0, 7), (9, 4))])
def test_pad_mirror_modes_are_numpys(mode, width):
    # (widths past the axis's size: padded in steps, as numpy does)
    got = tp.pad(X, width, mode=mode).numpy()
    np.testing.assert_array_equal(got, np.pad(X, width, mode=mode))


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_mirrors_a_size_1_axis_into_copies_as_numpy(mode):
    x = np.arange(3.0).reshape(1, 3)
    width = ((200, 1), (1, 1))  # (copies: any width, in one step)
    np.testing.assert_array_equal(tp.pad(x, width, mode=mode).numpy(), np.pad(x, width, mode=mode))


def test_pad_constant_mode_is_unchanged():
    np.testing.assert_array_equal(tp.pad(X, 1, "constant", constant_values=2.0).numpy(),
                                  np.pad(X, 1, constant_values=2.0))


@pytest.mark.parametrize("call,error,match", [
    (lambda: tp.pad(np.ones((0, 2)), 1, mode="reflect"), tp.ShapeError,
     r"pad: axis 0 of shape \(0, 2\) is empty: mode 'reflect' has nothing to mirror"),
    (lambda: tp.pad(X, 1000, mode="symmetric"), tp.ShapeError, r"pad: pad_width .* is more than 64 times"),
    (lambda: tp.pad(X, 1, mode="wrap"), tp.ArgumentError,
     r"pad: mode must be 'constant', 'reflect' or 'symmetric', got 'wrap'"),
    (lambda: tp.pad(X, -1, mode="reflect"), tp.ShapeError, r"pad: pad widths must be >= 0"),
])
def test_pad_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("b i j , b j k -> b k i", [(2, 2, 3), (2, 3, 2)]), ("...ij,...j->...i", [(2, 3, 4), (1, 4)]),
    ("i,j,k->ijk", [(2,), (3,), (2,)]), ("ij->", [(2, 3)]), ("...", [(2, 3)]), ("i,i", [(0,), (0,)]),
])
def test_einsum_is_numpys(subscripts, shapes):
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=s) for s in shapes]
    np.testing.assert_allclose(tp.einsum(subscripts, *xs).numpy(), np.einsum(subscripts, *xs), rtol=1e-12)


def test_einsum_promotes_dtypes_as_the_standard():
    out = tp.einsum("i,i->", tp.asarray([1, 2], dtype=tp.int32), tp.asarray([0.5, 0.25], dtype=tp.float32))
    assert out.dtype is tp.float32 and float(out.numpy()) == 1.0


@pytest.mark.parametrize("call,error,match", [
    (lambda: tp.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 3))), tp.ShapeError,
     r"einsum: letter 'j' of 'ij,jk->ik' has sizes 3 and 4"),
    (lambda: tp.einsum("ij,jk->ik", np.ones((2, 3))), tp.ShapeError,
     r"einsum: .* 2 input term\(s\) for 1 operand"),
    (lambda: tp.einsum("ij->ii", np.ones((2, 2))), tp.ShapeError, r"einsum: the output of 'ij->ii' repeats"),
    (lambda: tp.einsum("ij->k", np.ones((2, 2))), tp.ShapeError, r"which no input has"),
    (lambda: tp.einsum("i->i", np.ones((2, 2))), tp.ShapeError, r"einsum: term 'i' .* names 1 axes"),
    (lambda: tp.einsum("i$->i", np.ones((2, 2))), tp.ShapeError, r"einsum: equation 'i\$->i' is invalid"),
    (lambda: tp.einsum("...i,i->i", np.ones((2, 2)), np.ones(2)), tp.ShapeError, r"add '...' to the output"),
    (lambda: tp.einsum(3, np.ones(2)), tp.ArgumentError, r"einsum: subscripts must be a str"),
    (lambda: tp.einsum("i->i"), tp.ShapeError, r"einsum: give at least one operand"),
    (lambda: tp.einsum("i->i", np.ones(2, bool)), tp.DTypeError, r"einsum: operands are bool"),
])
def test_einsum_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_top_k_is_jax_laxs(backend):
    import jax

    tp.set_backend(backend)
    x = np.random.default_rng(1).integers(-5, 5, size=(2, 3, 8)).astype(np.float32)  # ties
    values, indices = tp.top_k(x, 3)
    want_values, want_indices = jax.lax.top_k(x, 3)
    np.testing.assert_array_equal(values.numpy(), np.asarray(want_values))
    np.testing.assert_array_equal(indices.numpy(), np.asarray(want_indices))
    assert indices.dtype is tp.int64


@pytest.mark.parametrize("call,error,match", [
    (lambda: tp.top_k(np.ones((2, 3)), 4), tp.ShapeError, r"top_k: k=4 must be in 0..3"),
    (lambda: tp.top_k(np.float64(1.0), 1), tp.ShapeError, r"top_k: x is 0-d"),
    (lambda: tp.top_k(np.ones(3, np.complex64), 1), tp.DTypeError, r"top_k: x must hold real numbers"),
    (lambda: tp.top_k(np.ones(3), 1.0), tp.ArgumentError, r"top_k: k must be an int"),
])
def test_top_k_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [(), (4,)], [(5, 1, 2), (1, 3, 1)], [], [3, (1,)]])
def test_broadcast_shapes_is_numpys(shapes):
    assert tp.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_and_args_refuse_clashing_sizes():
    with pytest.raises(tp.ShapeError, match=r"broadcast_shapes: shapes \(2,\), \(3,\) cannot be broadcast"):
        tp.broadcast_shapes((2,), (3,))
    with pytest.raises(tp.ShapeError, match=r"broadcast_args: shapes \(2, 3\), \(4,\) cannot be broadcast"):
        tp.broadcast_args(tp.asarray([2, 3]), tp.asarray([4]))
    with pytest.raises(tp.DTypeError, match=r"broadcast_args: shapes must be 1-d int32 or int64 tensors"):
        tp.broadcast_args(tp.asarray([2.0]), tp.asarray([4]))


def test_broadcast_args_is_tfs():
    out = tp.broadcast_args(tp.asarray([2, 1, 3], dtype=tp.int32), tp.asarray([4, 1], dtype=tp.int32))
    assert out.dtype is tp.int32 and out.numpy().tolist() == [2, 4, 3]


def test_tensor_diag_is_tfs_and_diagonal_still_extracts():
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tp.linalg.tensor_diag(v).numpy(), np.diag(v))
    m = np.arange(4.0).reshape(2, 2)
    want = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            want[i, j, i, j] = m[i, j]
    np.testing.assert_array_equal(tp.linalg.tensor_diag(m).numpy(), want)
    np.testing.assert_array_equal(tp.linalg.diagonal(m).numpy(), np.diagonal(m))


@pytest.mark.parametrize("lower,upper", [(0, 0), (1, -1), (-1, 2), (-1, -1), (7, 0)])
def test_band_part_is_tfs_definition(lower, upper):
    x = np.arange(1.0, 25.0).reshape(2, 3, 4)
    i, j = np.indices((3, 4))
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    np.testing.assert_array_equal(tp.linalg.band_part(x, lower, upper).numpy(), np.where(keep, x, 0.0))
    with pytest.raises(tp.ShapeError, match=r"band_part: x must be a matrix"):
        tp.linalg.band_part(np.ones(3), 0, 0)


def test_space_batch_and_depth_ops_round_trip_and_refuse():
    x = np.arange(2 * 4 * 6 * 3.0).reshape(2, 4, 6, 3)
    batched = tp.nn.space_to_batch_nd(x, (2, 3), ((0, 2), (1, 2)))
    assert batched.shape == (12, 3, 3, 3)
    np.testing.assert_array_equal(tp.nn.batch_to_space_nd(batched, (2, 3), ((0, 2), (1, 2))).numpy(), x)
    deep = tp.nn.space_to_depth(x, 2)
    assert deep.shape == (2, 2, 3, 12)
    np.testing.assert_array_equal(tp.nn.depth_to_space(deep, 2).numpy(), x)
    with pytest.raises(tp.ShapeError, match=r"space_to_batch_nd: spatial axis 1 padded to 5 does not divide"):
        tp.nn.space_to_batch_nd(x, (2, 3), ((0, 1), (0, 0)))
    with pytest.raises(tp.ShapeError, match=r"batch_to_space_nd: paddings|batch_to_space_nd: crops"):
        tp.nn.batch_to_space_nd(x, (2,), ((0, 0), (0, 0)))
    with pytest.raises(tp.ArgumentError, match=r"depth_to_space: data_format must be 'NHWC' or 'NCHW'"):
        tp.nn.depth_to_space(x, 2, "NWHC")
    with pytest.raises(tp.ShapeError, match=r"depth_to_space: the 3 channels do not divide by block_size"):
        tp.nn.depth_to_space(x, 2)


def test_the_kit_checks_every_output_of_a_kernel_of_outputs_by_attributes():
    from _toy_backend import install_toy_backend, toy_kernel
    from tensorplug.extend import KernelConfig, register_kernel
    from tensorplug.testing import opcheck

    install_toy_backend("toy")
    assert opcheck("SplitV", backend="toy").ok

    def last_part_wrong(inputs, attrs, backend):
        parts = np.split(inputs[0], np.cumsum(attrs["sizes"])[:-1], axis=attrs["axis"])
        return (*parts[:-1], parts[-1] * 0)

    register_kernel(KernelConfig("SplitV", "toy", toy_kernel("SplitV", last_part_wrong)), override=True)
    result = opcheck("SplitV", backend="toy", checks=("values",))
    assert not result.ok and any("output 'out[" in p.message for p in result.problems), result.report()
