"""The decompositions family: the matrix decompositions and solvers (``tp.linalg``): Cholesky, Eigh,
Eigvalsh, Eig, Eigvals, Inv, Qr, Svd, Svdvals, Solve, Slogdet, Det. Here: spec, ops, gradients,
jvps."""
