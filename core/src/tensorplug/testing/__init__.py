"""tensorplug's testing kit, for backend and plugin authors and for tensorplug's own tests.

- ``opcheck(kernel_name, backend=...)``: hold one kernel on one backend to its kernel spec and
  to numpy reference values (shapes, dtypes, values, bad inputs, gradient); returns an
  ``OpCheckResult`` (``.ok``, ``.report()``, ``.assert_ok()``); ``assert_opcheck`` raises.
- ``check_gradients(f, *args, order=1)``: reverse-mode gradients against finite differences.
- ``check_jvp(f, *args)``: forward mode (``tp.jvp``) against finite differences.
- ``gradient_needs()`` / ``needs_of(kernel_name)``: every kernel a gradient needs, found by running
  it on shapes and dtypes alone; ``minimum_grad_kernels()``: the fewest with which tp.grad works.
- The conformance suite, run by the pytest plugin this distribution ships:
  ``pytest --pyargs tensorplug.testing.conformance --tensorplug-backend NAME``.
- ``Reference`` (with a ``CaseMaker``: ``unary_cases``, ``binary_cases`` or your own function
  of the spec giving ``Case``s): teach the kit a kernel of your own, from your plugin's
  ``tensorplug_references`` hook (or by hand with ``register_reference``).
- ``isolated_registries`` / ``fresh_plugin_discovery``: registry isolation for tests.
"""

from tensorplug.testing.finite_differences import check_gradients
from tensorplug.testing.inputs import BadCase, Case, Domain, accepted, sample
from tensorplug.testing.isolation import fresh_plugin_discovery, isolated_registries
from tensorplug.testing.needs import GradientNeeds, gradient_needs, minimum_grad_kernels, needs_of
from tensorplug.testing.opcheck import CHECKS, assert_opcheck, opcheck, supports_float64
from tensorplug.testing.opcheck_jvps import check_jvp
from tensorplug.testing.references import (
    BadCaseMaker,
    CaseMaker,
    Reference,
    binary_cases,
    get_reference,
    register_reference,
    unary_cases,
)
from tensorplug.testing.result import OpCheckError, OpCheckResult, Problem

__all__ = [
    "CHECKS", "BadCase", "BadCaseMaker", "Case", "CaseMaker", "Domain", "GradientNeeds", "OpCheckError",
    "OpCheckResult", "Problem", "Reference", "accepted", "assert_opcheck", "binary_cases",
    "check_gradients", "check_jvp", "fresh_plugin_discovery", "get_reference", "gradient_needs",
    "isolated_registries", "minimum_grad_kernels", "needs_of", "opcheck", "register_reference",
    "sample", "supports_float64", "unary_cases",
]
