"""tp.fft, the Array API's fft extension, against numpy.fft on both backends: every function
in one table (one and several axes, n and s that pad and trim, each norm), output dtypes by
precision, the frequencies and shifts, and the arguments each refuses."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorplug as tp

F = tp.fft
BACKENDS = ["numpy", "jax"]
RNG = np.random.default_rng(3)
R = RNG.standard_normal((3, 5))
C = R + 1j * RNG.standard_normal((3, 5))

#: (name, tensorplug call, numpy call, input)
TABLE = [
    ("fft", lambda x: F.fft(x), lambda x: np.fft.fft(x), C),
    ("fft-n-axis", lambda x: F.fft(x, n=4, axis=0, norm="ortho"), lambda x: np.fft.fft(x, 4, 0, "ortho"), C),
    ("fft-real", lambda x: F.fft(x, n=7), lambda x: np.fft.fft(x, 7), R),
    ("ifft", lambda x: F.ifft(x, n=3, norm="forward"), lambda x: np.fft.ifft(x, 3, norm="forward"), C),
    ("fftn", lambda x: F.fftn(x), lambda x: np.fft.fftn(x), C),
    ("fftn-s", lambda x: F.fftn(x, s=(4, -1), axes=(1, 0)), lambda x: np.fft.fftn(x, (4, 3), (1, 0)), C),
    ("ifftn", lambda x: F.ifftn(x, s=(2,), axes=(0,), norm="ortho"),
     lambda x: np.fft.ifftn(x, (2,), (0,), "ortho"), C),
    ("rfft", lambda x: F.rfft(x), lambda x: np.fft.rfft(x), R),
    ("rfft-n", lambda x: F.rfft(x, n=8, axis=0, norm="forward"),
     lambda x: np.fft.rfft(x, 8, 0, "forward"), R),
    ("irfft", lambda x: F.irfft(x), lambda x: np.fft.irfft(x), C),
    ("irfft-n", lambda x: F.irfft(x, n=5, norm="ortho"), lambda x: np.fft.irfft(x, 5, norm="ortho"), C),
    ("rfftn", lambda x: F.rfftn(x, axes=(1, 0)), lambda x: np.fft.rfftn(x, axes=(1, 0)), R),
    ("irfftn", lambda x: F.irfftn(x), lambda x: np.fft.irfftn(x), C),
    ("irfftn-s", lambda x: F.irfftn(x, s=(4, 7), axes=(0, 1), norm="forward"),
     lambda x: np.fft.irfftn(x, (4, 7), (0, 1), "forward"), C),
    ("hfft", lambda x: F.hfft(x), lambda x: np.fft.hfft(x), C),
    ("hfft-n", lambda x: F.hfft(x, n=7, axis=0, norm="ortho"), lambda x: np.fft.hfft(x, 7, 0, "ortho"), C),
    ("ihfft", lambda x: F.ihfft(x), lambda x: np.fft.ihfft(x), R),
    ("ihfft-n", lambda x: F.ihfft(x, n=4, norm="forward"), lambda x: np.fft.ihfft(x, 4, norm="forward"), R),
    ("ihfft-pad", lambda x: F.ihfft(x, n=8, axis=0), lambda x: np.fft.ihfft(x, 8, 0), R),
    ("fftshift", lambda x: F.fftshift(x), lambda x: np.fft.fftshift(x), R),
    ("fftshift-axis", lambda x: F.fftshift(x, axes=1), lambda x: np.fft.fftshift(x, axes=1), R),
    ("ifftshift", lambda x: F.ifftshift(x, axes=(0, 1)), lambda x: np.fft.ifftshift(x, axes=(0, 1)), C),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_values_match_numpy(backend, dtype):
    """One pass over the table per backend and precision (jax compiles each call once)."""
    failures = []
    complex_dtype = {"float32": np.complex64, "float64": np.complex128}[dtype]
    with tp.backend_scope(backend):
        for name, ours, theirs, x in TABLE:
            x = x.astype(complex_dtype if np.iscomplexobj(x) else dtype)
            wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
            got, want = ours(tp.asarray(x)), theirs(wide)
            want_dtype = (complex_dtype if np.iscomplexobj(want) else np.dtype(dtype))
            if got.dtype.numpy != want_dtype:
                failures.append(f"{name}: dtype {got.dtype.name}, expected {np.dtype(want_dtype).name}")
            tol = 1e-4 if dtype == "float32" else 1e-11
            if not np.allclose(got.numpy(), want, rtol=tol, atol=tol):
                failures.append(f"{name}: off by {np.abs(got.numpy() - want).max()}")
    assert not failures, failures


@pytest.mark.parametrize("backend", BACKENDS)
def test_frequencies_match_numpy(backend):
    with tp.backend_scope(backend):
        for n in (1, 4, 7):
            for d in (1.0, 0.25):
                np.testing.assert_allclose(F.fftfreq(n, d=d, dtype=tp.float64).numpy(), np.fft.fftfreq(n, d))
                np.testing.assert_allclose(F.rfftfreq(n, d=d, dtype=tp.float64).numpy(),
                                           np.fft.rfftfreq(n, d))
        assert F.fftfreq(4).dtype is tp.float32 and F.rfftfreq(4, dtype=tp.float64).dtype is tp.float64
        device = tp.asarray(0.0).device
        assert F.fftfreq(3, device=device).device == device


def test_round_trips():
    x = RNG.standard_normal((4, 6))
    np.testing.assert_allclose(F.irfftn(F.rfftn(x), s=x.shape, axes=(0, 1)).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(F.ihfft(F.hfft(C[0], n=8), n=8).numpy(), np.fft.ihfft(np.fft.hfft(C[0], 8)),
                               atol=1e-12)
    np.testing.assert_array_equal(F.ifftshift(F.fftshift(x)).numpy(), x)


def test_signatures_follow_the_standard():
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        params = inspect.signature(getattr(F, name)).parameters
        assert list(params) == ["x", "n", "axis", "norm"]
        assert params["x"].kind is inspect.Parameter.POSITIONAL_ONLY
        assert params["norm"].default == "backward" and params["axis"].default == -1
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        assert list(inspect.signature(getattr(F, name)).parameters) == ["x", "s", "axes", "norm"]
    assert list(inspect.signature(F.fftfreq).parameters) == ["n", "d", "dtype", "device"]


@pytest.mark.parametrize(("call", "error", "pattern"), [
    (lambda: F.fft(np.arange(4)), tp.DTypeError, "fft needs a complex"),
    (lambda: F.rfft(C), tp.DTypeError, "rfft needs a real floating"),
    (lambda: F.fft(np.float64(1.0)), tp.ShapeError, "at least one dimension"),
    (lambda: F.fft(C, n=0), tp.ShapeError, "n must be >= 1"),
    (lambda: F.irfft(C[:, :1]), tp.ShapeError, "the default for this input"),
    (lambda: F.fft(C, axis=2), tp.ShapeError, "out of range"),
    (lambda: F.fft(C, norm="none"), tp.ArgumentError, "norm must be one of"),
    (lambda: F.fftn(C, s=(2, 2)), tp.ArgumentError, "s needs axes"),
    (lambda: F.fftn(C, s=(2,), axes=(0, 1)), tp.ShapeError, "one length per axis"),
    (lambda: F.fftn(C, axes=(0, -2)), tp.ShapeError, "twice"),
    (lambda: F.fftn(C, axes=()), tp.ShapeError, "at least one axis"),
    (lambda: F.fftfreq(0), tp.ShapeError, "n must be >= 1"),
    (lambda: F.fftfreq(4, d=0.0), tp.ArgumentError, "nonzero"),
    (lambda: F.rfftfreq(4, dtype=tp.int32), tp.DTypeError, "real floating-point dtype"),
    (lambda: F.fftshift(R, axes=3), tp.ShapeError, "out of range"),
])
def test_bad_arguments_are_refused(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()
