"""The linalg family: MatMul (with optional transposes, as TF.js's BatchMatMul), on real and complex
numbers. Here: spec, ops, gradients, jvps, batching, matrix_functions."""
