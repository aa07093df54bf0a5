"""The sparse family (TF semantics, int64 indices as TF's SparseTensor): SparseSegmentSum,
SparseSegmentMean, SparseToDense, SparseReshape, SparseFillEmptyRows. Here: spec, ops, gradients,
jvps."""
