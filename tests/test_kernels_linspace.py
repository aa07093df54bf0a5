"""LinSpace (tp.linspace's kernel) against np.linspace in double precision rounded once, on both
backends: within a few ulps inside, exactly start and stop at the ends; under tp.jit too."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from _kernel_helpers import assert_values, run

ENDS = [(0.1, 0.7, 7, True), (0.1, 0.7, 7, False), (-1.66e19, -6.6e16, 25, True), (3, -2, 1, True),
        (1.0, 2.0, 0, True), (2.0, 2.0, 4, True), (1j, 2.0 + 3j, 4, True)]
DTYPES = (tp.float32, tp.float64, tp.bfloat16, tp.complex128)


@pytest.mark.parametrize(("dtype", "start", "stop", "num", "endpoint"), [
    pytest.param(d, *ends, id=f"{d.name}-{ends}") for d in DTYPES for ends in ENDS
    if d.is_complex or not isinstance(ends[0], complex)])  # (complex ends need a complex dtype)
def test_linspace(dtype, start, stop, num, endpoint):
    attrs = {"start": start, "stop": stop, "num": num, "endpoint": endpoint, "dtype": dtype}
    got = run("LinSpace", {}, attrs)
    wide = np.complex128 if dtype.is_complex else np.float64
    want = np.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
    assert_values(got, want.astype(dtype.numpy), dtype)
    if num:
        assert got[0] == np.asarray(start, wide).astype(dtype.numpy)
    if num > 1 and endpoint:
        assert got[-1] == np.asarray(stop, wide).astype(dtype.numpy)


def test_linspace_under_jit_keeps_its_ends():
    f = tp.jit(lambda x: x + tp.linspace(0.1, 0.7, 7, dtype=tp.float64))
    out = f(np.zeros(7)).numpy()
    assert out[0] == 0.1 and out[-1] == 0.7
