"""Each distribution ships the license (its folder's LICENSE is the repository's, and hatchling
puts it in the wheel) and declares the Python versions it works on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = ["core", "plugins/cpu_numpy", "plugins/jax_backend", "plugins/example_ops"]


@pytest.mark.parametrize("folder", DISTRIBUTIONS)
def test_every_distribution_ships_the_license(folder):
    project = tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert (ROOT / folder / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert "MIT License" in (ROOT / "LICENSE").read_text()


def test_the_jax_backend_declares_the_pythons_jax_runs_on():
    project = tomllib.loads((ROOT / "plugins/jax_backend/pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"  # jax 0.8 and later need 3.11
