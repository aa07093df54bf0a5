"""Registries of kernel specs, kernels, gradients, JVP and batching rules, ops and backends: plain
data below the plugin manager, which fills them."""
