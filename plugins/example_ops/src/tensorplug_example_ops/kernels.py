"""Path 2 of the guide, the backend-specific half: the ``Erf`` kernel for each backend this
plugin supports. A kernel receives backend-native arrays (a tuple, in the spec's input order),
the attributes and the backend; it never sees a Tensor.

``kernels_for(backend_name)`` is what the plugin's ``tensorplug_kernels`` hook calls when a
backend starts. jax (torch) is imported only inside the jax (torch) kernel, which runs only on
the backend that brings it: this plugin never imports either itself, and needs neither installed. The
kernels are module-level functions, so that registering them again (when a disposed backend
restarts) registers the identical config, which is a no-op.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorplug.extend import KernelConfig
from tensorplug_example_ops.erf import ERF

__all__ = ["kernels_for"]

_erf_elementwise = np.frompyfunc(math.erf, 1, 1)


def _erf_numpy(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> np.ndarray:
    (x,) = inputs
    # math.erf is exact to float64 precision; frompyfunc gives objects, cast back.
    return np.asarray(_erf_elementwise(x), dtype=x.dtype)


def _erf_jax(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    # Imported here, not at the top: this runs only on the jax backend, which brings jax.
    from jax.scipy.special import erf

    return erf(inputs[0])


def _erf_torch(inputs: tuple[Any, ...], attrs: dict[str, Any], backend: Any) -> Any:
    # Imported here, as jax above: this runs only on the torch backend, which brings torch.
    import torch

    return torch.special.erf(inputs[0])


def kernels_for(backend_name: str) -> list[KernelConfig]:
    """The kernels this plugin has for `backend_name` (none for a backend it does not know)."""
    if backend_name == "numpy":
        return [KernelConfig(ERF, backend_name, _erf_numpy)]
    if backend_name == "jax":
        return [KernelConfig(ERF, backend_name, _erf_jax)]
    if backend_name == "torch":
        return [KernelConfig(ERF, backend_name, _erf_torch)]
    return []
