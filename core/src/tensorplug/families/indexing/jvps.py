"""JVP rules of the indexing kernels: all linear in their data (not in their indices), so each
runs on the tangent: Gather and StridedSlice read it, ScatterAdd and StridedSliceGrad place it."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import linear

linear("Gather", positions=(0,))  # gather(tx, indices)
linear("ScatterAdd", positions=(1,))  # scatter_add(indices, tupdates)
linear("StridedSlice", "StridedSliceGrad")
