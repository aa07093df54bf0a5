"""``tp.vmap`` and the core's batching rules, one module per kernel family (importing
declares them). A kernel without a rule is batched by a loop over the batch, with a warning."""

from tensorplug._families import import_families
from tensorplug.transforms.vmap.api import vmap

import_families(__name__)

__all__ = ["vmap"]
