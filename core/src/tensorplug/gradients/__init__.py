"""The core's default gradients, one module per kernel family (importing declares them:
``registry/core_entries.py``; ``register_core`` registers them in a runtime)."""

from tensorplug._families import import_families

import_families(__name__)
