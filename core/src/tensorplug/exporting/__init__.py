"""Export: a function traced into its kernel graph (``graph.py``), written as ONNX through the
per-kernel lowerings (``context.py``, ``onnx_model.py``), or as StableHLO through the jax
backend (``stablehlo.py``). The public surface is ``tensorplug.export``."""
