"""JVP rules of the sparse kernels: linear in their values (SparseSegmentSum/Mean's data,
SparseToDense's values and default value), run on the tangents."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import linear

linear("SparseSegmentMean", "SparseSegmentSum", positions=(0,))
linear("SparseToDense", positions=(1, 2))
