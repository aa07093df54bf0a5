"""``tp.linalg``: the Python Array API's linear-algebra extension (2025.12), for floating inputs,
real and complex: decompositions and solvers, norms, and the matrix functions composed of them.

Every function works on stacks of matrices (the last two axes; leading axes are a batch).
``matmul``, ``matrix_transpose``, ``outer``, ``tensordot`` and ``vecdot`` are the same
functions as ``tp.matmul`` and the others.
"""

from __future__ import annotations

from tensorplug.families.decompositions.ops import (
    EighResult,
    EigResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)
from tensorplug.families.linalg.matrix_functions import (
    cross,
    diagonal,
    matrix_power,
    matrix_rank,
    pinv,
    trace,
)
from tensorplug.families.linalg.ops import matmul, outer, tensordot, vecdot
from tensorplug.families.manipulation.ops import matrix_transpose
from tensorplug.families.reductions.norms import matrix_norm, vector_norm
from tensorplug.families.structure.ops import band_part, tensor_diag

__all__ = [
    "EigResult", "EighResult", "QRResult", "SVDResult", "SlogdetResult",
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
    "band_part", "tensor_diag",
]
