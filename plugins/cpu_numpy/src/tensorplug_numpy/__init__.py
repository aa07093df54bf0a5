"""tensorplug's NumPy (CPU) backend, shipped as a plugin: ``pip install tensorplug-backend-numpy``.

It is found through the ``tensorplug`` entry point group and uses only ``tensorplug.extend``.
"""

from tensorplug_numpy.backend import NumpyBackend

__all__ = ["NumpyBackend"]
