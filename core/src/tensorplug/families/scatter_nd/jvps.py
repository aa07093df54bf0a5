"""JVP rules of the N-d scatter/gather kernels: linear in their data (GatherNd's params,
ScatterNd's updates, TensorScatterUpdate's tensor and updates), run on the tangents."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import linear

linear("GatherNd", positions=(0,))
linear("ScatterNd", positions=(1,))
linear("TensorScatterUpdate", positions=(0, 2))  # the updated places take the updates' tangent
