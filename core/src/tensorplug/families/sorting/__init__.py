"""The sorting family: Sort, ArgSort, SearchSorted, Unique, UniqueCounts. Here: spec, ops, gradients,
jvps, batching, sets."""
