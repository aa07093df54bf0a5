"""The segments family: UnsortedSegmentSum, UnsortedSegmentMax and UnsortedSegmentMin
(jax.ops.segment_* / TF's unsorted_segment_*), Bincount and DenseBincount. Here: spec, ops,
gradients, jvps, batching."""
