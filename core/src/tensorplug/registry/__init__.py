"""Registries of kernel specs, kernels, gradients (and, in tensorplug.backend, backends)."""
