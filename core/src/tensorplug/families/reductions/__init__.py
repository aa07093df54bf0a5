"""The reductions family: Sum, Prod, Max, Min, EuclideanNorm, ArgMax, ArgMin, Cumsum, Cumprod. Here:
spec, ops, gradients, jvps, batching, norms."""
