"""tensorplug's JAX backend, shipped as a plugin: ``pip install tensorplug-backend-jax``.

It is found through the ``tensorplug`` entry point group and uses only ``tensorplug.extend``.
Importing this package does not import jax: jax is imported when the backend starts
(``tp.set_backend("jax")``). See the README for the dtype policy, devices and ``tp.jit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tensorplug_jax.backend import JaxBackend

__all__ = ["BACKEND_NAME", "JaxBackend"]

BACKEND_NAME = "jax"


def __getattr__(name: str) -> Any:
    if name == "JaxBackend":  # imports jax: only on request
        from tensorplug_jax.backend import JaxBackend

        return JaxBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
