"""The einsum family: Einsum: Einstein summation over any number of operands (numpy's subscripts:
letters, at most one '...' per term, an optional '->' output; without it the output is the letters
used once, sorted, after the ellipsis' axes). Here: spec, gradients, jvps."""
