"""The fused family: TF.js's fused kernels: FusedMatMul (TF.js's ``_FusedMatMul``), FusedConv2D and
FusedDepthwiseConv2D. Here: spec, ops, gradients, jvps, batching."""
