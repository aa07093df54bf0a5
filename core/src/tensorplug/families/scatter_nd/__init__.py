"""The scatter nd family: the n-d gather/scatter family (TF semantics): GatherNd, ScatterNd (each the
other's gradient). Here: spec, ops, gradients, jvps, batching."""
