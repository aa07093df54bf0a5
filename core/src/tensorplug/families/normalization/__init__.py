"""The normalization family (TF.js's names): FusedBatchNorm (the inference form: given moments), LRN
and its backward kernel LRNGrad (local response normalization across the last axis, channels last).
Here: spec, ops, gradients, jvps."""
