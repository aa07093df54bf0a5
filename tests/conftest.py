"""Shared fixtures: every test runs with isolated registries (STYLE.md, rule 11)."""

from __future__ import annotations

import pytest

from tensorplug.testing.isolation import isolated_registries


@pytest.fixture(autouse=True)
def _isolated_registries():
    with isolated_registries():
        yield


@pytest.fixture
def core_gradients():
    """The core's default gradients for the core's kernels, whatever plugins are installed
    (example_ops overrides Round's): for tests of the defaults themselves. Plugins' own
    kernels keep their gradients. Undone by the isolation above."""
    import tensorplug as tp
    from tensorplug.registry._slots import CORE_SOURCE
    from tensorplug.registry.gradients import GRADIENTS
    from tensorplug.registry.specs import SPECS

    tp.extend.load_plugins()
    for key, stack in GRADIENTS.registrations():
        spec = SPECS.registration(key)
        if spec is None or spec.source != CORE_SOURCE:
            continue
        for reg in stack:
            if reg.source != CORE_SOURCE:
                GRADIENTS.remove(key, reg.source)
    yield
