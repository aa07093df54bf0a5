"""The optim family: AdamUpdate. Here: spec, the same update written with ops (composed),
batching rule, ONNX lowering."""
