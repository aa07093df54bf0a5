"""Reference values of LinSpace: np.linspace in double precision rounded once (num 0, 1 and
more, endpoint or not, a decreasing and a complex range), exact at both ends."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorplug.dtypes import DType, complex64, float32, float64, int32
from tensorplug.errors import DTypeError, ShapeError
from tensorplug.kernels.kernel_spec import KernelSpec
from tensorplug.testing.inputs import BadCase, Case
from tensorplug.testing.references._base import reference


def _cases(spec: KernelSpec) -> list[Case]:
    out = [Case((), {"start": a, "stop": b, "num": n, "endpoint": e, "dtype": float64})
           for a, b, n, e in ((0.0, 1.0, 5, True), (2.0, -1.0, 4, False), (0.1, 0.7, 7, True),
                              (3.0, 4.0, 1, True), (0.0, 1.0, 0, True), (-1.0, 1e-3, 3, False))]
    out.append(Case((), {"start": 0.1, "stop": 0.3, "num": 3, "dtype": float32}))
    out.append(Case((), {"start": 1j, "stop": 2.0 + 0j, "num": 3, "dtype": complex64}))
    return out


def _bad(spec: KernelSpec) -> list[BadCase]:
    return [BadCase((), {"start": 0, "stop": 1, "num": 3, "dtype": int32}, error=DTypeError,
                    why="an integer dtype"),
            BadCase((), {"start": 1j, "stop": 1, "num": 3, "dtype": float32}, error=DTypeError,
                    why="complex ends and a real dtype"),
            BadCase((), {"start": 0, "stop": 1, "num": -1, "dtype": float32}, error=ShapeError,
                    why="a negative num")]


@reference("LinSpace", _cases, _bad)
def _linspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: DType) -> np.ndarray:
    wide = np.complex128 if dtype.is_complex else np.float64
    values = np.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
    if num > 1 and endpoint:  # (one value: start)
        values[-1] = stop
    return values.astype(dtype.numpy)
