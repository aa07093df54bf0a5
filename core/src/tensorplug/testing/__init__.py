"""tensorplug's testing kit, for backend and plugin authors and for tensorplug's own tests.

- ``opcheck(kernel_name, backend=...)``: hold one kernel on one backend to its kernel spec and
  to numpy reference values (shapes, dtypes, values, bad inputs, gradient); returns an
  ``OpCheckResult`` (``.ok``, ``.report()``, ``.assert_ok()``); ``assert_opcheck`` raises.
- ``check_gradients(f, *args, order=1)``: reverse-mode gradients against finite differences.
- ``gradient_needs()`` / ``needs_of(kernel_name)``: every kernel a gradient needs, found by running
  it on shapes and dtypes alone; ``minimum_grad_kernels()``: the fewest with which tp.grad works.
- The conformance suite, run by the pytest plugin this distribution ships:
  ``pytest --pyargs tensorplug.testing.conformance --tensorplug-backend NAME``.
- ``Reference`` / ``register_reference``: teach the kit a kernel of your own.
- ``isolated_registries`` / ``fresh_plugin_discovery``: registry isolation for tests.
"""

from .gradcheck import check_gradients
from .inputs import BadCase, Case, Domain
from .isolation import fresh_plugin_discovery, isolated_registries
from .needs import GradientNeeds, gradient_needs, minimum_grad_kernels, needs_of
from .opcheck import CHECKS, assert_opcheck, opcheck, supports_float64
from .references import Reference, get_reference, register_reference
from .result import OpCheckError, OpCheckResult, Problem

__all__ = [
    "CHECKS", "BadCase", "Case", "Domain", "GradientNeeds", "OpCheckError", "OpCheckResult", "Problem",
    "Reference", "assert_opcheck", "check_gradients", "fresh_plugin_discovery", "get_reference",
    "gradient_needs", "isolated_registries", "minimum_grad_kernels", "needs_of", "opcheck",
    "register_reference", "supports_float64",
]
