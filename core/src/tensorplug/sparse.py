"""``tp.sparse``: TF's sparse ops on a sparse tensor given as its parts (int64 (n, rank)
indices, (n,) values, dense shape): segment_sum, segment_mean, to_dense, reshape,
fill_empty_rows."""

from __future__ import annotations

from tensorplug.families.sparse.ops import fill_empty_rows, reshape, segment_mean, segment_sum, to_dense

__all__ = ["fill_empty_rows", "reshape", "segment_mean", "segment_sum", "to_dense"]
