"""ONNX lowering of the decompositions family's one kernel ONNX has: Det. (Cholesky, Qr, Svd,
Eigh, Solve, Inv, Slogdet have no ONNX operator.)"""

from __future__ import annotations

from tensorplug.families._common.onnx_util import same_op

same_op("Det", "Det")
