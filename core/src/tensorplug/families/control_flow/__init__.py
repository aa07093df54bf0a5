"""The control-flow family: Cond, While and Scan, kernels whose attributes are traced functions
(``graphs.py``, traced by ``tracing.py``); ``tp.cond``, ``tp.switch``, ``tp.while_loop``,
``tp.fori_loop`` and ``tp.scan`` over them (``ops.py``). Here: spec, ops, the generic kernels
every backend gets (``generic.py``), gradients, JVP and batching rules, ONNX lowerings."""
