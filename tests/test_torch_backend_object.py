"""The torch backend object (tensorplug_torch.backend) and its plugin module: host data both
ways (0-d arrays, bfloat16), the dtypes it holds and the nearest one named for those it does
not, devices, DLPack round trips with torch and numpy (memory shared, read-only for numpy),
and that scanning the plugins imports no torch."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import DeviceError, DTypeError

torch = pytest.importorskip("torch")
pytest.importorskip("tensorplug_torch")


@pytest.fixture(autouse=True)
def _on_torch():
    tp.set_backend("torch")


@pytest.mark.parametrize("dtype", [tp.bool, tp.int8, tp.uint8, tp.int64, tp.float16, tp.bfloat16,
                                   tp.float32, tp.complex128])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_host_round_trip_keeps_shape_dtype_and_values(dtype, shape):
    host = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype.numpy)
    x = tp.asarray(host)
    assert (x.shape, x.dtype, tuple(x.native.shape)) == (shape, dtype, shape)
    assert x.native.dtype == getattr(torch, dtype.name)
    np.testing.assert_array_equal(x.numpy(), host)


def test_from_numpy_copies_so_later_writes_to_the_array_do_not_show():
    host = np.arange(4.0)
    x = tp.asarray(host)
    host[0] = 99.0
    assert x.numpy()[0] == 0.0


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_dtypes_torch_cannot_compute_with_are_refused_naming_the_nearest_held(dtype):
    with pytest.raises(DTypeError, match=r"backend 'torch' cannot hold uint\d+.*nearest dtype it holds"):
        tp.asarray(np.arange(3, dtype=dtype))


def test_the_array_api_inspection_lists_the_dtypes_the_backend_holds():
    listed = tp.__array_namespace_info__().dtypes()
    assert "uint8" in listed and not {"uint16", "uint32", "uint64"} & set(listed)
    assert tp.__array_namespace_info__().dtypes(kind="unsigned integer") == {"uint8": tp.uint8}
    with tp.backend_scope("numpy"):
        assert "uint64" in tp.__array_namespace_info__().dtypes()


def test_a_tensor_that_requires_grad_is_refused_saying_to_detach_it_or_shared_detached():
    t = torch.ones(3, requires_grad=True)
    for backend in ("torch", "numpy"):
        with tp.backend_scope(backend), pytest.raises(DTypeError, match=r"asarray: cannot convert "
                                                      r"Tensor: .*requires grad.*detach\(\)"):
            tp.asarray(t)
    shared = tp.asarray(t, copy=False)  # (torch's DLPack export refuses it: read detached)
    assert not shared.native.requires_grad and shared.native.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(tp.asarray(t.detach()).numpy(), np.ones(3, np.float32))


def test_devices_and_an_unknown_device():
    assert tp.asarray([1.0]).device == "cpu"
    with pytest.raises(DeviceError, match=r"Backend 'torch' has no device 'cuda:7'; its devices are \['cpu'"):
        tp.device_put(tp.asarray([1.0]), "cuda:7")


def test_the_tensor_of_a_python_scalar_is_made_once_while_tensors_are_made_on_the_cpu(monkeypatch):
    backend = tp.extend.start_backend("torch")
    x = tp.asarray([1.0, 2.0])
    made = []
    real = backend.from_numpy
    monkeypatch.setattr(backend, "from_numpy", lambda a: made.append(a) or real(a))
    assert (x * 2.375).tolist() == (x * 2.375).tolist() == [2.375, 4.75]
    assert len(made) == 1  # (torch tensors are never written: one 0-d tensor serves both)
    # on another default device each is made there (a CPU scalar cached before is not for it)
    monkeypatch.setattr(backend, "devices", lambda: ["cpu", "meta"])
    backend.set_default_device("meta")
    assert not backend.reuses_scalars
    backend.set_default_device("cpu")
    assert backend.reuses_scalars


def test_torch_reads_a_tensor_without_a_copy_and_back():
    x = tp.asarray([1.0, 2.0, 3.0])
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.native.data_ptr()
    y = tp.from_dlpack(t)
    assert (y.backend, y.dtype, y.native.data_ptr()) == ("torch", tp.float32, t.data_ptr())
    assert tp.from_dlpack(t, copy=True).native.data_ptr() != t.data_ptr()


@pytest.mark.parametrize("dtype", [tp.bool, tp.int16, tp.float64, tp.complex64])
def test_numpy_reads_a_tensor_without_a_copy_and_read_only(dtype):
    x = tp.asarray((np.arange(6).reshape(2, 3) % 2).astype(dtype.numpy))
    arr = np.from_dlpack(x)
    assert arr.ctypes.data == x.native.data_ptr()
    assert not arr.flags.writeable  # (torch's own export let numpy write the tensor)
    np.testing.assert_array_equal(tp.from_dlpack(arr).numpy(), x.numpy())


def test_bfloat16_goes_to_torch_through_dlpack():
    x = tp.asarray([1.5, -2.0], dtype=tp.bfloat16)
    t = torch.from_dlpack(x)
    assert t.dtype == torch.bfloat16 and t.tolist() == [1.5, -2.0]


def test_scanning_the_plugins_imports_no_torch():
    code = textwrap.dedent("""
        import sys
        import tensorplug as tp
        assert "torch" in tp.list_backends(), tp.list_backends()
        print("torch" in sys.modules)
    """)
    env = {**os.environ, "TENSORPLUG_BACKEND": "numpy"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_lazy_conjugate_and_negative_views_reach_numpy_and_dlpack():
    """(torch.conj gives a view with a conjugate bit, and its imaginary part one with a negative
    bit: numpy can view neither, so .numpy() of them raised)"""
    backend = tp.extend.start_backend("torch")
    t = torch.tensor([1 + 2j, -3j], dtype=torch.complex64)
    for lazy, want in ((torch.conj(t), np.array([1 - 2j, 3j], np.complex64)),
                       (torch.conj(t).imag, np.array([-2.0, 3.0], np.float32))):
        np.testing.assert_array_equal(backend.to_numpy(lazy), want)
        np.testing.assert_array_equal(np.from_dlpack(_Exported(backend, lazy)), want)


class _Exported:
    """A native tensor exported through the backend's DLPack hooks (what a Tensor does)."""

    def __init__(self, backend: tp.extend.Backend, native: torch.Tensor) -> None:
        self.backend, self.native = backend, native

    def __dlpack__(self, **kwargs: object) -> object:
        return self.backend.to_dlpack(self.native, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.backend.dlpack_device(self.native)


def test_jit_takes_numpy_arrays_and_other_backends_tensors():
    """(tp.jit hands a plan host arguments as numpy arrays: torch kernels got them as they were)"""
    f = tp.jit(lambda v: tp.exp(v) * 2.0)
    host = np.arange(4, dtype=np.float32)
    with tp.backend_scope("numpy"):
        on_numpy = tp.asarray(host)
    for arg in (host, host + 1, on_numpy, tp.asarray(host)):
        out = f(arg)
        assert out.backend == "torch" and isinstance(out.native, torch.Tensor)
        np.testing.assert_allclose(out.numpy(), np.exp(np.asarray(arg)) * 2, rtol=1e-6)
