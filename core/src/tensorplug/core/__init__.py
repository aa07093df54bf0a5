"""The core objects: Tensor, Variable, the runtime and its per-context state, validators, versions."""
