"""Reference values of MatMul: matrix products over the last two axes with broadcast batch
axes, empty and size-1 dimensions; 1-d inputs are refused (tp.matmul handles them)."""

from __future__ import annotations

import numpy as np

from ...errors import ShapeError
from ._base import reference
from .manipulation import BadTable, Table, table_bad, table_cases

_MATMUL: Table = [
    ([(2, 3), (3, 4)], {}), ([(1, 1), (1, 1)], {}), ([(2, 2, 3), (3, 2)], {}),
    ([(2, 1, 2, 3), (3, 3, 2)], {}),
    ([(0, 3), (3, 2)], {}), ([(2, 0), (0, 3)], {}), ([(3, 2), (2, 0)], {}), ([(1, 4, 1), (2, 1, 3)], {}),
]
_MATMUL_BAD: BadTable = [([(2, 3), (4, 2)], {}, ShapeError, "inner sizes that differ"),
               ([(3,), (3, 2)], {}, ShapeError, "a 1-d input"),
               ([(2, 2, 3), (3, 3, 2)], {}, ShapeError, "batch axes that do not broadcast")]
reference("MatMul", table_cases(_MATMUL), table_bad(_MATMUL_BAD))(np.matmul)


