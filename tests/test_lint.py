"""The code base stays clean: ruff and mypy (configured in pyproject.toml) pass, as ``make lint``
runs them (both are in requirements-dev.txt, which the test setup installs). A finding fails
the test run and is printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("tool", ["ruff", "mypy"])
def test_the_linters_pass(tool, tmp_path):
    if tool == "ruff":
        run = _run("ruff", "check", "--no-cache", ".")
    else:
        run = _run("mypy", "--cache-dir", str(tmp_path / "mypy"))
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_the_linters_are_pinned():
    """A new ruff or mypy release must not fail the suite: requirements-dev.txt pins both to the
    exact versions installed, and the installed ones are those."""
    from importlib.metadata import version

    pins = dict(line.split("#")[0].strip().split("==") for line in
                (ROOT / "requirements-dev.txt").read_text().splitlines() if "==" in line.split("#")[0])
    assert pins.keys() >= {"ruff", "mypy"}, pins
    for tool in ("ruff", "mypy"):
        assert version(tool) == pins[tool], f"{tool} {version(tool)} is installed, {pins[tool]} pinned"
