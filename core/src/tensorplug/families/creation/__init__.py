"""The creation family (no tensor inputs): Fill, Range, Eye, RandomUniform, RandomNormal. Here: spec,
ops, random, onnx_lowerings."""
