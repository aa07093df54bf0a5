"""The conformance kit's reference table: for each core kernel, the inputs to call it with
(every accepted dtype, broadcasting, 0-d, empty and size-1 shapes, attribute variants, values
from a domain where the function is defined) and numpy code giving its values, or a property
check where values cannot be predicted (random kernels). Also the inputs each kernel must
refuse, and with which typed error.

The references are numpy computations of the kit's own, never the numpy backend's kernels, so
the kit checks the numpy backend too. A plugin that declares kernel specs teaches the kit its
kernels from its ``tensorplug_references`` hook (``from_plugins``), or by hand with
``register_reference``.
"""

from tensorplug.registry.family_configs import import_families
from tensorplug.testing.references._base import (
           REFERENCES,
           BadCaseMaker,
           CaseMaker,
           Reference,
           binary_cases,
           reference,
           register_reference,
           unary_cases,
)
from tensorplug.testing.references.from_plugins import get_reference, plugin_references

import_families(__name__)

__all__ = ["REFERENCES", "BadCaseMaker", "CaseMaker", "Reference", "binary_cases", "get_reference",
           "plugin_references", "reference", "register_reference", "unary_cases"]
