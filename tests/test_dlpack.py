"""DLPack: Tensor.__dlpack__ / __dlpack_device__ and tp.from_dlpack, round trips between
tensorplug (both backends), numpy and jax; memory is shared where claimed; clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _host_buffers import aligned as _aligned

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")




def _address(t: tp.Tensor) -> int:
    native = t.native
    return native.ctypes.data if isinstance(native, np.ndarray) else native.unsafe_buffer_pointer()


@pytest.mark.parametrize("dtype", [tp.bool, tp.int8, tp.uint32, tp.int64, tp.float32, tp.float64,
                                   tp.complex64])
def test_round_trips_through_numpy_and_jax_keep_values_and_dtype(backend, dtype):
    base = np.arange(6).reshape(2, 3) % 2 if dtype is tp.bool else np.arange(6).reshape(2, 3)
    x = tp.asarray(base.astype(dtype.numpy))
    via_numpy = tp.from_dlpack(np.from_dlpack(x))
    with jax.enable_x64(True):  # (else jax narrows 64-bit dtypes as it imports)
        via_jax = tp.from_dlpack(jnp.from_dlpack(x))
    for y in (via_numpy, via_jax, tp.from_dlpack(x)):
        assert (y.backend, y.dtype, y.shape) == (backend, dtype, (2, 3))
        np.testing.assert_array_equal(y.numpy(), x.numpy())


@pytest.mark.parametrize("dtype", [tp.int16, tp.uint8, tp.float16, tp.bfloat16, tp.float32, tp.bool])
def test_asarray_of_a_jax_array_keeps_its_dtype(backend, dtype):
    # (jax's int16 became int64 and its float16 float32, as if it were a Python list)
    got = tp.asarray(jnp.asarray(np.arange(3) % 2, dtype=dtype.numpy))
    assert got.dtype is dtype
    np.testing.assert_array_equal(got.numpy(), (np.arange(3) % 2).astype(dtype.numpy))


def test_numpy_reads_a_tensor_without_a_copy_and_read_only(backend):
    x = tp.asarray(np.arange(8.0))
    arr = np.from_dlpack(x)
    assert arr.ctypes.data == _address(x)
    assert not arr.flags.writeable  # DLPack 1.0 tells numpy the tensor is immutable
    assert x.__dlpack_device__() == (1, 0)


def test_from_dlpack_shares_numpy_and_jax_memory_unless_copy(backend):
    host = _aligned(16)
    y = tp.from_dlpack(host)
    assert _address(y) == host.ctypes.data
    assert _address(tp.from_dlpack(host, copy=True)) != host.ctypes.data
    j = jnp.arange(16.0)
    assert _address(tp.from_dlpack(j)) == j.unsafe_buffer_pointer()


def test_jax_reads_a_jax_backend_tensor_without_a_copy():
    tp.set_backend("jax")
    x = tp.arange(16.0) * 2.0
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(x)), np.arange(16.0) * 2)
    capsule_owner = jnp.from_dlpack(x)
    assert capsule_owner.unsafe_buffer_pointer() == _address(x)


def test_dunder_dlpack_takes_the_standards_arguments(backend):
    x = tp.asarray(np.arange(4.0))
    for max_version in (None, (0, 0), (1, 0), (2, 0)):
        for copy in (None, True, False):
            assert x.__dlpack__(max_version=max_version, dl_device=(1, 0), copy=copy) is not None


def test_from_dlpack_device_and_backend_arguments(backend):
    device = tp.devices()[0]
    y = tp.from_dlpack(np.arange(3.0), device=device)
    assert y.device == device
    other = "jax" if backend == "numpy" else "numpy"
    z = tp.from_dlpack(np.arange(3.0), backend=other)
    assert z.backend == other


def test_what_cannot_be_exchanged_is_a_clear_error(backend):
    x = tp.asarray(np.arange(4.0))
    with pytest.raises(tp.ArgumentError, match=r"from_dlpack: x must implement the DLPack protocol"):
        tp.from_dlpack([1.0, 2.0])
    with pytest.raises(tp.DLPackError, match=r"cannot import a ndarray .*Convert with tp.asarray instead"):
        tp.from_dlpack(np.ones(2, "datetime64[s]"))
    with pytest.raises(tp.DLPackError, match=r"cannot export this tensor") as info:
        x.__dlpack__(dl_device=(2, 0))
    assert isinstance(info.value, BufferError)
    with pytest.raises(tp.ArgumentError, match=r"max_version must be None or a tuple of two ints"):
        x.__dlpack__(max_version=3)
    with pytest.raises(tp.ArgumentError, match=r"copy"):
        tp.from_dlpack(np.ones(2), copy="yes")
    with pytest.raises(tp.DeviceError, match=r"no device"):
        tp.from_dlpack(np.ones(2), device="tpu:7")


def test_numpy_backend_exports_to_legacy_consumers_without_a_copy():
    tp.set_backend("numpy")
    x = tp.asarray(_aligned(8))
    assert x.__dlpack__(max_version=None) is not None  # a legacy capsule (jax reads these)
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(x)), np.arange(8.0))
