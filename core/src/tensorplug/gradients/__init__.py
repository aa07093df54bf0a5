"""The core's default gradients, one module per kernel family (importing registers them)."""

from .._families import import_families

import_families(__name__)
