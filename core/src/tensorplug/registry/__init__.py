"""Registries of kernel specs, kernels, gradients (and, in tensorplug.backends.lifecycle, backends)."""
