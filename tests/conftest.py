"""Shared fixtures: every test runs with isolated registries (STYLE.md, rule 11)."""

from __future__ import annotations

import pytest
from tensorplug.testing.isolation import isolated_registries


@pytest.fixture(autouse=True)
def _isolated_registries():
    with isolated_registries():
        yield
