"""tensorplug's PyTorch backend: a plugin whose native arrays are ``torch.Tensor``s."""
