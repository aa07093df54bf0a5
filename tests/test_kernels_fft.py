"""The Fft, Ifft, Rfft and Irfft kernels on each backend against numpy.fft's n-d transforms:
every norm, lengths that pad and trim, axes in any order, single and double precision (the
output's dtype as the spec says), and the inputs each spec refuses."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import accepted_dtypes, kit_values, message, run

RNG = np.random.default_rng(5)
NORMS = ["backward", "ortho", "forward"]
NAMES = ["Fft", "Ifft", "Rfft", "Irfft"]  # (values: the kit's references, kit_values)
#: (input shape, axes, s): one axis, lengths that pad and trim, axes out of order, a batch
LAYOUTS = [((5,), (0,), (5,)), ((3, 4), (1,), (6,)), ((3, 4), (1,), (3,)), ((2, 3, 4), (2, 0), (3, 2)),
           ((2, 3, 4), (0, 1, 2), (2, 3, 4)), ((4, 1), (1, 0), (1, 5))]


def _input(name, shape, dtype):
    x = RNG.standard_normal(shape)
    if dtype.is_complex:
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype.numpy)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_kernels_match_numpy_fft(name, layout):
    shape, axes, s = LAYOUTS[layout]
    for dtype in accepted_dtypes(name, "x"):
        x = _input(name, shape, dtype)
        for norm in NORMS if layout == 1 else NORMS[layout % 3:layout % 3 + 1]:  # (each compiles on jax)
            got = run(name, {"x": x}, {"axes": axes, "s": s, "norm": norm})
            want = kit_values(name, x, axes=axes, s=s, norm=norm)
            tol = 1e-4 if dtype in (tp.float32, tp.complex64) else 1e-11
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()),
                                       err_msg=f"{name} {dtype.name} {norm}")


def test_output_dtypes_follow_the_precision():
    x32, x64 = np.ones(4, np.float32), np.ones(4, np.float64)
    attrs = {"axes": (0,), "s": (4,)}
    assert run("Rfft", {"x": x32}, attrs).dtype == np.complex64
    assert run("Rfft", {"x": x64}, attrs).dtype == np.complex128
    assert run("Irfft", {"x": x32.astype(np.complex64)}, attrs).dtype == np.float32
    assert run("Fft", {"x": x64.astype(np.complex128)}, attrs).dtype == np.complex128


def test_round_trips_are_the_identity():
    x = RNG.standard_normal((3, 6))
    spectrum = run("Rfft", {"x": x}, {"axes": (0, 1), "s": (3, 6), "norm": "ortho"})
    back = run("Irfft", {"x": spectrum}, {"axes": (0, 1), "s": (3, 6), "norm": "ortho"})
    np.testing.assert_allclose(back, x, atol=1e-12)
    z = x + 1j * x[::-1]
    back = run("Ifft", {"x": run("Fft", {"x": z}, {"axes": (1,), "s": (6,)})}, {"axes": (1,), "s": (6,)})
    np.testing.assert_allclose(back, z, atol=1e-12)


@pytest.mark.parametrize(("name", "x", "attrs", "error", "fragments"), [
    ("Rfft", np.ones(4, np.complex128), {"axes": (0,), "s": (4,)}, tp.DTypeError, ("complex128",)),
    ("Fft", np.ones(4, np.float64), {"axes": (0,), "s": (4,)}, tp.DTypeError, ("float64",)),
    ("Fft", np.ones(4, np.int64), {"axes": (0,), "s": (4,)}, tp.DTypeError, ("int64",)),
    ("Fft", np.ones(4, np.complex64), {"axes": (1,), "s": (4,)}, tp.ShapeError, ("out of range",)),
    ("Fft", np.ones((2, 4), np.complex64), {"axes": (1, -1), "s": (4, 4)}, tp.ShapeError, ("twice",)),
    ("Fft", np.ones(4, np.complex64), {"axes": (0,), "s": (4, 4)}, tp.ShapeError, ("one length per axis",)),
    ("Irfft", np.ones(4, np.complex64), {"axes": (0,), "s": (0,)}, tp.ShapeError, (">= 1",)),
    ("Ifft", np.ones(4, np.complex64), {"axes": (0,), "s": (4,), "norm": "none"}, tp.ShapeError, ("norm",)),
], ids=["rfft-complex", "fft-real", "fft-int", "axis-range", "axis-twice", "lengths", "zero-length", "norm"])
def test_refused_inputs(name, x, attrs, error, fragments):
    with pytest.raises((error, tp.TensorplugError), match=message(*fragments)):
        run(name, {"x": x}, attrs)
