"""JVP rules of the segment kernels: UnsortedSegmentSum is linear in its data; UnsortedSegmentMax
and Min take, per segment, the mean tangent of the rows equal to its result (the gradient's
equal split among ties, JAX's rule for scatter max/min); an empty segment's tangent is 0."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tensorplug import ops as tp
from tensorplug.core.tensor import Tensor
from tensorplug.families._common.gradient_util import kernel
from tensorplug.families._common.jvp_util import jvp_rule, linear
from tensorplug.families.segments.gradients import extremum_hits

Tangents = tuple[Tensor | None, ...]

linear("UnsortedSegmentSum", positions=(0,))


@jvp_rule("UnsortedSegmentMax", "UnsortedSegmentMin")
def _segment_extremum(primals: tuple[Tensor, ...], tangents: Tangents, outputs: tuple[Tensor, ...],
                      attrs: Mapping[str, Any]) -> Tensor | None:
    (data, ids), (t, _), (out,) = primals, tangents, outputs
    if t is None:
        return None
    n = attrs["num_segments"]
    hits, count = extremum_hits(data, ids, out, n, t.dtype)
    return kernel("UnsortedSegmentSum", hits * t, ids, num_segments=n) / tp.maximum(count, 1)
