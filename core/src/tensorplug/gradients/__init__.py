"""The core's default gradients, one module per kernel family (importing registers them)."""
