"""tp.asarray's `copy=` as the Array API says: True always copies, None copies only where needed
(a numpy array, so that writing it later leaves the tensor as it was), False shares the caller's
buffer where the backend can alias it and raises CopyError where a copy or a cast is needed."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _host_buffers import aligned as _aligned
from _toy_backend import install_toy_backend


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_, np.complex64])
def test_copy_false_shares_the_numpy_buffer(backend, dtype):
    host = _aligned(64, dtype)
    x = tp.asarray(host, copy=False)
    assert (x.backend, x.dtype.numpy, x.shape) == (backend, np.dtype(dtype), (64,))
    host[3] = host[0]  # the one way to change a tensor: write the buffer it was asked to share
    assert x.numpy()[3] == host[0]


@pytest.mark.parametrize("copy", [None, True])
def test_copy_none_and_true_keep_the_tensor_apart_from_the_numpy_array(backend, copy):
    for _ in range(4):  # (jax puts a shape it saw twice through a compiled identity: still a copy)
        host = _aligned(64)
        x = tp.asarray(host, copy=copy)
        host[3] = -1.0
        assert x.numpy()[3] == 3.0


def test_copy_true_copies_a_tensor_that_shares_a_buffer(backend):
    host = _aligned(8)
    shared = tp.asarray(host, copy=False)
    own = tp.asarray(shared, copy=True)
    host[1] = 100.0
    assert shared.numpy()[1] == 100.0 and own.numpy()[1] == 1.0
    assert tp.asarray(shared) is shared and tp.asarray(shared, copy=False) is shared


def test_copy_true_differentiates_batches_and_compiles(backend):
    def f(v):
        return tp.sum(tp.asarray(v, copy=True) ** 2)

    x = tp.asarray([1.0, 2.0, 3.0])
    np.testing.assert_allclose(tp.grad(f)(x).numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(tp.jvp(f, (x,), (tp.ones(3),))[1].numpy(), 12.0)
    np.testing.assert_allclose(tp.vmap(f)(tp.ones((2, 3))).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(tp.jit(f)(x).numpy(), 14.0)


def test_copy_false_refuses_what_needs_a_copy_or_a_cast(backend):
    with pytest.raises(tp.CopyError, match=r"asarray\(copy=False\): a list has no buffer.*copy=None"):
        tp.asarray([1.0, 2.0], copy=False)
    with pytest.raises(tp.CopyError, match=r"a float has no buffer to share"):
        tp.asarray(1.5, copy=False)
    with pytest.raises(tp.CopyError, match=r"casting the float32 data to float64 makes a new buffer"):
        tp.asarray(np.ones(3, np.float32), dtype=tp.float64, copy=False)
    with pytest.raises(tp.CopyError, match=r"casting the float32 tensor to int32"):
        tp.asarray(tp.ones(3), dtype=tp.int32, copy=False)
    with pytest.raises(tp.CopyError, match=r"byte order is not the machine's"):
        tp.asarray(np.ones(3, ">f8" if np.little_endian else "<f8"), copy=False)
    other = "jax" if backend == "numpy" else "numpy"
    with pytest.raises(tp.CopyError, match=rf"on backend '{backend}', and moving it to backend '{other}'"):
        tp.asarray(tp.ones(3), backend=other, copy=False)
    with pytest.raises(ValueError):  # (a CopyError is a ValueError, as the standard asks)
        tp.asarray([1], copy=False)
    with pytest.raises(tp.ArgumentError, match=r"asarray: copy must be True or False"):
        tp.asarray([1], copy="no")


def test_copy_false_on_jax_needs_a_64_byte_aligned_buffer():
    pytest.importorskip("jax")
    tp.set_backend("jax")
    unaligned = _aligned(9)[1:]
    with pytest.raises(tp.CopyError, match=r"backend 'jax' cannot share the memory .*aligned.*copy=None"):
        tp.asarray(unaligned, copy=False)


def test_a_backend_that_only_copies_refuses_copy_false_naming_itself():
    install_toy_backend("toy")
    tp.set_backend("toy")
    with pytest.raises(tp.CopyError, match=r"backend 'toy' cannot share .*from_numpy, which copies"):
        tp.asarray(np.ones(3), copy=False)
    x = tp.asarray(np.ones(3))
    assert tp.asarray(x, copy=True).numpy().tolist() == [1.0, 1.0, 1.0]


def test_copy_false_takes_a_jax_array_as_it_is_on_jax():
    jnp = pytest.importorskip("jax.numpy")
    tp.set_backend("jax")
    j = jnp.arange(16.0)
    x = tp.asarray(j, copy=False)
    assert x.native.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()
    assert x.numpy().tolist() == list(range(16))


def test_copy_false_inside_vmap_takes_outer_tensors_and_shares_numpy_arrays(backend):
    host = _aligned(3)
    outer = tp.asarray(np.ones(3))

    def f(row):
        return row + tp.asarray(outer, copy=False) + tp.asarray(host, copy=False)

    got = tp.vmap(f)(tp.zeros((2, 3), dtype=tp.float64))
    np.testing.assert_array_equal(got.numpy(), [[1.0, 2.0, 3.0]] * 2)
