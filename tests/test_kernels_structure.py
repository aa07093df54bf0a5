"""The layout and structure kernels (MirrorPad, SpaceToBatchND, BatchToSpaceND, DepthToSpace,
SpaceToDepth, Reverse, Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK, Einsum)
on each first-party backend, against numpy, jax.numpy / jax.lax and TF's definitions, on a
float, an integer and a half-float dtype; their several outputs, inside tp.jit too; errors
naming the kernel."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, raises_for, run, sample

DTYPES = [tp.float32, tp.int32, tp.bfloat16]
_ids = [d.name for d in DTYPES]


def _outputs(name, inputs, attrs):
    out = tp.run_kernel(name, inputs, attrs)
    assert isinstance(out, tuple)
    return [np.asarray(o.numpy()) for o in out]


def _wide(x):
    """bfloat16 values as float32, where numpy's own functions cannot take them."""
    return x.astype(np.float32) if x.dtype.kind == "V" else x


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_mirror_pad_is_numpys(dtype, mode):
    x = sample((3, 4), dtype)
    pads = ((2, 1), (0, 3))
    got = run("MirrorPad", {"x": x}, {"paddings": pads, "mode": mode})
    assert_values(got, np.pad(_wide(x), pads, mode=mode), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_space_to_batch_follows_tfs_example_and_round_trips(dtype):
    # TF's documented example: [1, 4, 4, 1] with block (2, 2) -> [4, 2, 2, 1], offsets major
    x = np.arange(16).reshape(1, 4, 4, 1).astype(dtype.numpy)
    got = run("SpaceToBatchND", {"x": x}, {"block_shape": (2, 2), "paddings": ((0, 0), (0, 0))})
    assert_values(got[:, :, :, 0], np.array([[[0, 2], [8, 10]], [[1, 3], [9, 11]],
                                             [[4, 6], [12, 14]], [[5, 7], [13, 15]]]), dtype)
    padded = run("SpaceToBatchND", {"x": x}, {"block_shape": (2, 3), "paddings": ((1, 1), (1, 1))})
    assert padded.shape == (6, 3, 2, 1)
    back = run("BatchToSpaceND", {"x": padded}, {"block_shape": (2, 3), "crops": ((1, 1), (1, 1))})
    assert_values(back, x, dtype)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_depth_to_space_follows_tfs_example_and_round_trips(dtype, fmt):
    # TF's example: [1, 1, 1, 4] of [1, 2, 3, 4] with block 2 -> [[[[1], [2]], [[3], [4]]]]
    x = np.array([1, 2, 3, 4]).reshape(1, 1, 1, 4).astype(dtype.numpy)
    if fmt == "NCHW":
        x = x.transpose(0, 3, 1, 2)
    got = run("DepthToSpace", {"x": x}, {"block_size": 2, "data_format": fmt})
    want = np.array([[1, 2], [3, 4]]).reshape((1, 2, 2, 1) if fmt == "NHWC" else (1, 1, 2, 2))
    assert_values(got, want, dtype)
    y = sample((2, 4, 6, 3) if fmt == "NHWC" else (2, 3, 4, 6), dtype)
    deep = run("SpaceToDepth", {"x": y}, {"block_size": 2, "data_format": fmt})
    assert_values(run("DepthToSpace", {"x": deep}, {"block_size": 2, "data_format": fmt}), y, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_reverse_tile_diag_band_part_are_numpys(dtype):
    x = sample((2, 3, 4), dtype)
    assert_values(run("Reverse", {"x": x}, {"axes": (0, 2)}), np.flip(x, (0, 2)), dtype)
    assert_values(run("Tile", {"x": x}, {"reps": (1, 2, 3)}), np.tile(x, (1, 2, 3)), dtype)
    v = sample((3,), dtype)
    assert_values(run("Diag", {"x": v}, {}), np.diag(_wide(v)), dtype)
    keep = np.triu(np.tril(np.ones((3, 4)), 2), -1)  # -1 <= j - i <= 2
    assert_values(run("MatrixBandPart", {"x": x}, {"num_lower": 1, "num_upper": 2}), _wide(x) * keep, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_split_v_and_unpack_give_one_output_each(dtype):
    x = sample((2, 6), dtype)
    parts = _outputs("SplitV", {"x": tp.asarray(x)}, {"sizes": (1, 0, 5), "axis": 1})
    for got, want in zip(parts, np.split(x, [1, 1], axis=1), strict=True):
        assert_values(got, want, dtype)
    rows = _outputs("Unpack", {"x": tp.asarray(x)}, {"axis": 1})
    assert len(rows) == 6 and all(r.shape == (2,) for r in rows)
    assert_values(np.stack(rows, axis=1), x, dtype)


def test_split_v_and_unpack_inside_jit():
    f = tp.jit(lambda x: [p * 2.0 for p in tp.split(x, 3, axis=0)] + list(tp.unstack(x, axis=1)))
    x = np.arange(12.0).reshape(3, 4)
    got = [np.asarray(t.numpy()) for t in f(tp.asarray(x))]
    want = [p * 2.0 for p in np.split(x, 3)] + list(x.T)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
def test_top_k_is_jax_laxs_without_nans(dtype):
    import jax

    x = sample((3, 7), dtype, -50, 50)  # (integers repeat: ties go to the lower index, as lax's)
    values, indices = _outputs("TopK", {"x": tp.asarray(x)}, {"k": 4})
    want_values, want_indices = jax.lax.top_k(x, 4)
    assert_values(values, np.asarray(want_values), dtype)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices, np.asarray(want_indices))


def test_top_k_puts_nans_last_as_the_sorting_family():
    x = np.array([[1.0, np.nan, 3.0, -np.inf, 3.0]])
    values, indices = _outputs("TopK", {"x": tp.asarray(x)}, {"k": 5})
    assert indices.tolist() == [[2, 4, 0, 3, 1]]
    np.testing.assert_array_equal(values, [[3.0, 3.0, 1.0, -np.inf, np.nan]])


@pytest.mark.parametrize("dtype", DTYPES, ids=_ids)
@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk,k->bi", [(2, 2, 3), (2, 3, 2), (2,)]),
    ("ii->i", [(3, 3)]), ("...j,j", [(2, 3, 4), (4,)]), ("ij,ij->ij", [(1, 3), (4, 3)]),
])
def test_einsum_is_jax_numpys(dtype, equation, shapes):
    import jax.numpy as jnp

    xs = [sample(s, dtype, seed=i) for i, s in enumerate(shapes)]
    got = run("Einsum", {"operands": xs}, {"equation": equation})
    want = np.asarray(jnp.einsum(equation, *[_wide(x) for x in xs]))
    assert_values(got, want, dtype)


def test_broadcast_args_is_numpys():
    for s0, s1 in [([2, 1, 3], [4, 1]), ([1], [5, 1]), ([], [2])]:
        got = run("BroadcastArgs", {"s0": np.array(s0, np.int32), "s1": np.array(s1, np.int32)}, {})
        assert got.tolist() == list(np.broadcast_shapes(tuple(s0), tuple(s1)))


@pytest.mark.parametrize("name,inputs,attrs,error,fragments", [
    ("MirrorPad", {"x": np.ones(3)}, {"paddings": ((3, 0),), "mode": "reflect"}, tp.ShapeError,
     ["MirrorPad", "at most 2"]),
    ("SpaceToBatchND", {"x": np.ones((1, 3, 4))}, {"block_shape": (2, 2), "paddings": ((0, 0), (0, 0))},
     tp.ShapeError, ["SpaceToBatchND", "does not divide by its block size 2"]),
    ("DepthToSpace", {"x": np.ones((1, 2, 2, 6))}, {"block_size": 2}, tp.ShapeError,
     ["DepthToSpace", "block_size ** 2"]),
    ("SplitV", {"x": np.ones((2, 5))}, {"sizes": (2, 2), "axis": 1}, tp.ShapeError, ["SplitV", "adding up"]),
    ("TopK", {"x": np.ones((2, 3))}, {"k": 4}, tp.ShapeError, ["TopK", "k=4"]),
    ("TopK", {"x": np.ones(2, np.complex64)}, {"k": 1}, tp.DTypeError, ["TopK", "complex64"]),
    ("Einsum", {"operands": [np.ones((2, 3)), np.ones((4, 3))]}, {"equation": "ij,jk->ik"},
     tp.ShapeError, ["Einsum", "letter 'j'"]),
    ("BroadcastArgs", {"s0": np.ones(2), "s1": np.ones(2)}, {}, tp.DTypeError, ["BroadcastArgs", "int32"]),
])
def test_bad_inputs_name_the_kernel(name, inputs, attrs, error, fragments):
    raises_for(name, error, inputs, attrs, *fragments)


def test_an_unknown_mirror_mode_is_refused_by_the_spec():
    with pytest.raises(tp.ShapeError, match="kernel 'MirrorPad': attribute 'mode'='wrap' is invalid"):
        tp.run_kernel("MirrorPad", [tp.ones(3)], {"paddings": ((1, 0),), "mode": "wrap"})


def test_the_ops_and_their_gradients_under_jit_match_eager():
    def loss(x):
        parts = tp.split(x, [1], axis=1)
        return (tp.sum(tp.top_k(x, 2)[0]) + tp.einsum("ij,ij->", x, x) + tp.sum(tp.pad(x, 5, mode="reflect"))
                + tp.sum(tp.nn.depth_to_space(tp.reshape(x, (1, 1, 2, 4)), 2) ** 2) + tp.sum(parts[1] ** 2)
                + tp.sum(tp.linalg.band_part(tp.tile(x, (2, 1)), 1, 0) * tp.flip(tp.tile(x, (2, 1)), axis=0)))

    x = tp.asarray(sample((2, 4), tp.float64))
    np.testing.assert_allclose(tp.jit(loss)(x).numpy(), loss(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tp.jit(tp.grad(loss))(x).numpy(), tp.grad(loss)(x).numpy(), rtol=1e-12)
    shapes = tp.jit(lambda s0, s1: tp.broadcast_args(s0, s1))  # (no values inside: no check)
    assert shapes(tp.asarray([2, 1]), tp.asarray([3])).numpy().tolist() == [2, 3]
