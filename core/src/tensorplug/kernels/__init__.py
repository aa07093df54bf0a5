"""Kernels: the kernel spec, the dispatcher an op calls, ``run_kernel``, and the checks of one call."""
