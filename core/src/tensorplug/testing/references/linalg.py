"""Reference values of MatMul: matrix products over the last two axes with broadcast batch
axes, empty and size-1 dimensions, either input transposed by attribute; 1-d inputs are
refused (tp.matmul handles them)."""

from __future__ import annotations

import numpy as np

from tensorplug.errors import ShapeError
from tensorplug.testing.references._base import reference
from tensorplug.testing.references.manipulation import BadTable, Table, table_bad, table_cases

_MATMUL: Table = [
    ([(2, 3), (3, 4)], {}), ([(1, 1), (1, 1)], {}), ([(2, 2, 3), (3, 2)], {}),
    ([(2, 1, 2, 3), (3, 3, 2)], {}),
    ([(0, 3), (3, 2)], {}), ([(2, 0), (0, 3)], {}), ([(3, 2), (2, 0)], {}), ([(1, 4, 1), (2, 1, 3)], {}),
    ([(3, 2), (3, 4)], {"transpose_x": True}), ([(2, 3), (4, 3)], {"transpose_y": True}),
    ([(3, 2), (4, 3)], {"transpose_x": True, "transpose_y": True}),
    ([(2, 1, 3, 2), (3, 4, 3)], {"transpose_x": True, "transpose_y": True}),
    ([(1, 3, 2), (2, 3, 4)], {"transpose_x": True}), ([(0, 3), (2, 3)], {"transpose_y": True}),
]
_MATMUL_BAD: BadTable = [
    ([(2, 3), (4, 2)], {}, ShapeError, "inner sizes that differ"),
    ([(3,), (3, 2)], {}, ShapeError, "a 1-d input"),
    ([(2, 2, 3), (3, 3, 2)], {}, ShapeError, "batch axes that do not broadcast"),
    ([(2, 3), (3, 4)], {"transpose_x": True}, ShapeError, "inner sizes that differ once x is transposed"),
    ([(2, 3), (3, 4)], {"transpose_y": True}, ShapeError, "inner sizes that differ once y is transposed"),
]


@reference("MatMul", table_cases(_MATMUL), table_bad(_MATMUL_BAD))
def _matmul(x: np.ndarray, y: np.ndarray, transpose_x: bool = False,
            transpose_y: bool = False) -> np.ndarray:
    return np.matmul(np.swapaxes(x, -1, -2) if transpose_x else x,
                     np.swapaxes(y, -1, -2) if transpose_y else y)


