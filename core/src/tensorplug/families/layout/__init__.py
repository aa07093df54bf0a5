"""The layout family (TF.js's spatial and batch rearrangements): MirrorPad, SpaceToBatchND,
BatchToSpaceND, DepthToSpace, SpaceToDepth. Here: spec, ops, gradients, jvps, batching."""
