"""The testing kit's reference for ``Erf``: the inputs to call the kernel with and numpy code
giving its values, so that ``tensorplug.testing.opcheck("Erf")`` and the conformance suite
check its values, not only its shapes and gradient. ``plugin.py`` hands it over from the
``tensorplug_references`` hook, which tensorplug asks only when the kit runs: this module, and
the kit it imports, are never imported by users of the plugin.
"""

from __future__ import annotations

import math

import numpy as np

from tensorplug.extend import KernelSpec
from tensorplug.testing import Case, Domain, Reference, accepted, sample
from tensorplug_example_ops.erf import ERF

__all__ = ["ERF_REFERENCE", "erf_cases"]

SHAPES = ((), (0,), (1,), (5,), (2, 3))


def erf_cases(spec: KernelSpec) -> list[Case]:
    """A CaseMaker: given the kernel's spec, the cases to run. Every dtype the spec accepts x
    a few shapes (0-d, empty, size-1 included), values of both signs where erf bends, plus
    hand-picked values (where erf saturates, and a tiny one) that the gradient check skips."""
    cases = []
    for dtype in accepted(spec, "x"):
        for i, shape in enumerate(SHAPES):
            cases.append(Case((sample(shape, dtype, Domain(-2.5, 2.5), key=(ERF, i)),)))
        cases.append(Case((np.array([0.0, 1e-6, -6.0, 6.0], dtype=dtype.numpy),), label="special"))
    return cases


ERF_REFERENCE = Reference(
    ERF,
    erf_cases,
    # inputs arrive as float64 (upcast=True, the default); the kit casts the result to the
    # dtype the spec gives and compares it within float tolerances
    compute=np.vectorize(math.erf, otypes=[np.float64]),
)
