"""The indexing family: StridedSlice (and its gradient StridedSliceGrad), Gather (take), ScatterAdd
(Gather's gradient), NonZero, OneHot. Here: spec, ops, gradients, jvps, batching."""
