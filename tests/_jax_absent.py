"""Why the jax backend is not installed, where that is expected: jax supports Python >= 3.11
only, so on 3.10 the Makefile leaves the jax backend out, and every test that needs it (the
test_jax_* modules, the "jax" cases of per-backend tests, tests marked `jax`) is skipped with
this reason (conftest.py). On any other Python a missing jax backend fails those tests."""

from __future__ import annotations

import sys

JAX_ABSENT = (f"the jax backend needs Python >= 3.11 (jax supports no older Python); this is "
              f"Python {sys.version_info.major}.{sys.version_info.minor}, where `make test` does not "
              "install it" if sys.version_info < (3, 11) else None)

#: the first-party backends installed for the tests, in priority order (jax and torch: priority 0,
#: below numpy's 1; ties by name)
FIRST_PARTY_BACKENDS = ["numpy"] + ([] if JAX_ABSENT else ["jax"]) + ["torch"]
