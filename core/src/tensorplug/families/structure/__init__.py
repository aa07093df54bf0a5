"""The structure family (TF.js's kernels that rearrange, split or select without arithmetic): Reverse,
Tile, SplitV, Unpack, BroadcastArgs, Diag, MatrixBandPart, TopK. Here: spec, ops, gradients, jvps,
grids."""
