"""Function transforms: autodiff, vmap, jit."""
