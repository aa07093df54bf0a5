"""The layers' check against torch: a tensorplug layer and a torch function computing the same
from the layer's own weights (passed in tensorplug's layouts; the function transposes them,
so torch's autograd gives the gradients in those layouts), run on one float64 input: outputs,
and gradients of sum(out * r) with respect to the input and every variable, to 1e-6."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

import tensorplug as tp

torch.set_num_threads(1)

#: the torch function of each activation name the tests use
TORCH_ACTIVATIONS: dict[Any, Callable[[torch.Tensor], torch.Tensor]] = {
    None: lambda t: t, "relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    "gelu": lambda t: F.gelu(t, approximate="tanh"), "leaky_relu": lambda t: F.leaky_relu(t, 0.01),
    "elu": F.elu, "silu": F.silu, "relu6": F.relu6, "softmax": lambda t: torch.softmax(t, -1),
    "softplus": F.softplus, "selu": F.selu,
}

TorchFn = Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor]


def check_against_torch(layer: Any, x_np: np.ndarray, torch_fn: TorchFn, seed: int = 0) -> None:
    """`layer(x)` and its gradients (input, every variable) equal `torch_fn(x, weights)`'s."""
    rng = np.random.default_rng(seed)
    x = tp.asarray(x_np)
    out = layer(x)
    r = rng.standard_normal(out.shape)
    grads, grad_x = tp.grad(lambda lay, x: tp.sum(lay(x) * tp.asarray(r)), argnums=(0, 1))(layer, x)

    weights = {name: torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True)
               for name, v in layer.named_variables()}
    xt = torch.tensor(x_np, requires_grad=True)
    out_t = torch_fn(xt, weights)
    (out_t * torch.tensor(r)).sum().backward()

    assert out.shape == tuple(out_t.shape), (out.shape, tuple(out_t.shape))
    np.testing.assert_allclose(np.asarray(out), out_t.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(grad_x), xt.grad.numpy(), rtol=1e-6, atol=1e-6, err_msg="input")
    for name, w in weights.items():
        np.testing.assert_allclose(np.asarray(getattr(grads, name)), w.grad.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=name)
