"""Creation functions as the Array API standard has them: signatures (positional-only and
keyword-only), device= on each, linspace's values against numpy's."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorplug as tp

CREATION = {
    "arange": lambda d: tp.arange(3, device=d),
    "asarray": lambda d: tp.asarray([1.0], device=d),
    "empty": lambda d: tp.empty((2,), device=d),
    "empty_like": lambda d: tp.empty_like(tp.ones(2), device=d),
    "eye": lambda d: tp.eye(2, device=d),
    "full": lambda d: tp.full((2,), 3.0, device=d),
    "full_like": lambda d: tp.full_like(tp.ones(2), 3.0, device=d),
    "linspace": lambda d: tp.linspace(0.0, 1.0, 3, device=d),
    "ones": lambda d: tp.ones((2,), device=d),
    "ones_like": lambda d: tp.ones_like(tp.ones(2), device=d),
    "zeros": lambda d: tp.zeros((2,), device=d),
    "zeros_like": lambda d: tp.zeros_like(tp.ones(2), device=d),
    "from_dlpack": lambda d: tp.from_dlpack(np.ones(2), device=d),
}


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("name", sorted(CREATION))
def test_device_keyword_places_the_tensor(backend, name):
    pytest.importorskip("jax") if backend == "jax" else None
    tp.set_backend(backend)
    for device in (tp.devices()[0], tp.__array_namespace_info__().devices()[-1]):
        assert CREATION[name](device).device == device
    with pytest.raises(tp.DeviceError, match="no device|device must be"):
        CREATION[name]("tpu:9")
    with pytest.raises(tp.DeviceError, match="device must be a device of backend"):
        CREATION[name](3)


STANDARD = {  # (positional-only, positional-or-keyword, keyword-only) parameter names
    "arange": (["start"], ["stop", "step"], ["dtype", "device"]),
    "asarray": (["obj"], [], ["dtype", "device", "copy", "backend"]),
    "empty": ([], ["shape"], ["dtype", "device"]),
    "empty_like": (["x"], [], ["dtype", "device"]),
    "eye": (["n_rows", "n_cols"], [], ["k", "dtype", "device"]),
    "from_dlpack": (["x"], [], ["device", "copy", "backend"]),
    "full": ([], ["shape", "fill_value"], ["dtype", "device"]),
    "full_like": (["x"], ["fill_value"], ["dtype", "device"]),
    "linspace": (["start", "stop"], ["num"], ["dtype", "device", "endpoint"]),
    "ones": ([], ["shape"], ["dtype", "device"]),
    "ones_like": (["x"], [], ["dtype", "device"]),
    "zeros": ([], ["shape"], ["dtype", "device"]),
    "zeros_like": (["x"], [], ["dtype", "device"]),
}


@pytest.mark.parametrize("name", sorted(STANDARD))
def test_signatures_follow_the_standard(name):
    params = inspect.signature(getattr(tp, name)).parameters.values()
    got = ([p.name for p in params if p.kind is p.POSITIONAL_ONLY],
           [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD],
           [p.name for p in params if p.kind is p.KEYWORD_ONLY])
    assert got == STANDARD[name]


@pytest.mark.parametrize("dtype", [None, tp.float32, tp.float64, tp.complex64])
@pytest.mark.parametrize("start, stop, num", [
    (0.0, 1.0, 5), (-1.6617974761741353e+19, -6.632609762036941e+16, 25), (3, -2, 1), (1.0, 2.0, 0),
    (2.0, 2.0, 4)])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_numpy_and_keeps_its_ends(dtype, start, stop, num, endpoint):
    out = tp.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)
    np_dtype = np.float32 if dtype is None else dtype.numpy
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64).astype(np_dtype)
    assert out.dtype is (tp.float32 if dtype is None else dtype)
    np.testing.assert_array_equal(out.numpy(), expected)
    if num > 1 and endpoint:
        assert out.numpy()[-1] == np.asarray(stop, dtype=np_dtype)
    if not endpoint:
        longer = tp.linspace(start, stop, num + 1, dtype=dtype)
        np.testing.assert_array_equal(out.numpy(), longer.numpy()[:-1])


def test_linspace_of_complex_ends_is_complex_and_refuses_integer_dtypes():
    out = tp.linspace(1j, 2.0, 3)
    assert out.dtype is tp.complex64
    np.testing.assert_allclose(out.numpy(), np.linspace(1j, 2.0, 3))
    with pytest.raises(tp.DTypeError, match="linspace: dtype must be a floating dtype"):
        tp.linspace(0, 1, 3, dtype=tp.int32)
    with pytest.raises(tp.DTypeError, match="complex for complex start"):
        tp.linspace(1j, 1, 3, dtype=tp.float32)
