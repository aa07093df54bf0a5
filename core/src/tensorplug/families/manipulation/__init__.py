"""The manipulation family: Reshape, Transpose, BroadcastTo, Concat, Stack, Pad, Roll. Here: spec, ops,
gradients, jvps, batching."""
