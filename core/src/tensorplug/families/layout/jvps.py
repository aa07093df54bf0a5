"""JVP rules of the layout kernels: each moves elements without combining them (linear), so
it runs on the tangent itself."""

from __future__ import annotations

from tensorplug.families._common.jvp_util import linear

linear("BatchToSpaceND", "DepthToSpace", "MirrorPad", "SpaceToBatchND", "SpaceToDepth")
