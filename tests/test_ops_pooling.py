"""tp.nn's pooling ops: max_pool / avg_pool 1-, 2- and 3-D against jax.lax.reduce_window
('VALID', 'SAME', explicit padding, both layouts, on each backend), max_pool_with_argmax,
dilation2d, and the ops' errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _jax_reference import jax, jax_in_64_bits, jnp  # noqa: F401  (the fixture: autouse)

RNG = np.random.default_rng(0)


def _reduce_window(kind, x, window, strides, padding, channels_first=False):
    lead = 2 if channels_first else 1
    w = (1,) * lead + tuple(window) + (1,) * (2 - lead)
    s = (1,) * lead + tuple(strides) + (1,) * (2 - lead)
    pad = padding if isinstance(padding, str) else ((0, 0),) * lead + tuple(padding) + ((0, 0),) * (2 - lead)
    if kind == "max":
        return np.asarray(jax.lax.reduce_window(x, -np.inf, jax.lax.max, w, s, pad))
    total = jax.lax.reduce_window(x, 0.0, jax.lax.add, w, s, pad)
    return np.asarray(total / jax.lax.reduce_window(np.ones_like(x), 0.0, jax.lax.add, w, s, pad))


POOLS = [
    pytest.param((2, 9, 3), (3,), (2,), "SAME", False, id="1d-same"),
    pytest.param((2, 3, 8), (2,), (3,), "VALID", True, id="1d-valid-cf"),
    pytest.param((2, 7, 6, 3), (3, 2), (2, 2), "SAME", False, id="2d-same"),
    pytest.param((1, 2, 5, 6), (2, 3), (1, 2), ((1, 0), (2, 1)), True, id="2d-explicit-cf"),
    pytest.param((1, 4, 5, 3, 2), (2, 2, 2), (2, 1, 2), "SAME", False, id="3d-same"),
]


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize(("shape", "window", "strides", "padding", "cf"), POOLS)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_ops_match_reduce_window(kind, shape, window, strides, padding, cf, backend):
    x = RNG.normal(size=shape)
    fmt = "channels_first" if cf else "channels_last"
    with tp.backend_scope(backend):
        got = getattr(tp.nn, f"{kind}_pool")(x, window, strides, padding, fmt)
    np.testing.assert_allclose(got.numpy(), _reduce_window(kind, x, window, strides, padding, cf), rtol=1e-12)


def test_pool_defaults_and_dtypes():
    x = RNG.normal(size=(1, 4, 4, 2)).astype(np.float32)
    assert tp.nn.max_pool(x, (2, 2)).shape == (1, 3, 3, 2)  # strides 1, 'VALID'
    assert tp.nn.max_pool(x, (2, 2)).dtype is tp.float32
    ints = np.arange(16).reshape(1, 4, 4, 1)
    avg = tp.nn.avg_pool(ints, (2, 2), (2, 2))
    assert avg.dtype is tp.float32 and avg.numpy()[0, 0, 0, 0] == 2.5
    with pytest.raises(tp.DTypeError, match="max_pool: x must be a real floating tensor, got int64"):
        tp.nn.max_pool(ints, (2, 2))


def test_same_average_divides_by_the_real_elements():
    got = tp.nn.avg_pool(np.ones((1, 3, 3, 1)), (3, 3), padding="SAME").numpy()
    np.testing.assert_array_equal(got, np.ones((1, 3, 3, 1)))


def test_max_pool_with_argmax_op():
    x = RNG.normal(size=(2, 4, 5, 3))
    values, indices = tp.nn.max_pool_with_argmax(x, (2, 2), (2, 2), "SAME", include_batch_in_index=True)
    np.testing.assert_array_equal(values.numpy(), _reduce_window("max", x, (2, 2), (2, 2), "SAME"))
    np.testing.assert_array_equal(x.reshape(-1)[indices.numpy()], values.numpy())


def test_dilation2d_op_same_padding():
    x, f = RNG.normal(size=(1, 5, 5, 2)), RNG.normal(size=(3, 3, 2))
    got = tp.nn.dilation2d(x, f, strides=1, padding="SAME", dilations=2).numpy()
    xp = np.pad(x, ((0, 0), (2, 2), (2, 2), (0, 0)), constant_values=-np.inf)
    taps = [xp[:, 2 * i:2 * i + 5, 2 * j:2 * j + 5] + f[i, j] for i in range(3) for j in range(3)]
    want = np.max(taps, axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(("op", "args", "error", "match"), [
    ("max_pool", ((2, 2, 2, 2),), tp.ShapeError, "pooling is 1-, 2- or 3-D"),
    ("max_pool", ((2, 2), None, "same-ish"), tp.ShapeError, "is not 'VALID' or 'SAME'"),
    ("avg_pool", ((2,),), tp.ShapeError, "x must be 3-d for a 1-D window"),
    ("avg_pool", (2,), tp.ShapeError, None),  # (x 2-d below: no spatial axis)
    ("avg_pool", ((2, 2), (1, 2, 3)), tp.ShapeError, "strides .* has 3 entries for 2 spatial axes"),
    ("max_pool", ((2, 2), None, "VALID", "NHWC"), tp.ArgumentError, "data_format must be"),
    ("max_pool", ((2, 2), None, ((0, 0),)), tp.ShapeError, "padding has 1 pairs for 2 spatial axes"),
    ("max_pool", ((5, 5),), tp.ShapeError, "larger than the padded input"),
])
def test_pool_errors(op, args, error, match):
    if match is None:  # one int for the window: x's own rank must be poolable
        with pytest.raises(error, match=r"x has shape \(4, 1\); pooling takes \(batch, 1 to 3 spatial"):
            getattr(tp.nn, op)(np.zeros((4, 1), np.float32), *args)
        return
    with pytest.raises(error, match=match):
        getattr(tp.nn, op)(np.zeros((1, 4, 4, 1), np.float32), *args)


@pytest.mark.parametrize("op", ["max_pool", "avg_pool"])
def test_one_int_window_is_that_size_on_every_spatial_axis(op):
    for shape in ((2, 6, 3), (2, 6, 4, 3), (1, 4, 6, 4, 2)):
        x = RNG.normal(size=shape)
        rank = len(shape) - 2
        got = getattr(tp.nn, op)(x, 2, 2, "SAME").numpy()
        np.testing.assert_array_equal(got, getattr(tp.nn, op)(x, (2,) * rank, (2,) * rank, "SAME").numpy())
