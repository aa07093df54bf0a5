"""The linters are pinned. ruff and mypy themselves run in ``make lint`` (which ``.ci/run`` runs
beside ``make test``), not inside the test suite: a cold mypy run alone takes minutes."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_linters_are_pinned():
    """A new ruff or mypy release must not fail CI: requirements-dev.txt pins both to the
    exact versions installed, and the installed ones are those."""
    from importlib.metadata import version

    pins = dict(line.split("#")[0].strip().split("==") for line in
                (ROOT / "requirements-dev.txt").read_text().splitlines() if "==" in line.split("#")[0])
    assert pins.keys() >= {"ruff", "mypy"}, pins
    for tool in ("ruff", "mypy"):
        assert version(tool) == pins[tool], f"{tool} {version(tool)} is installed, {pins[tool]} pinned"


def test_ci_runs_the_linters_and_the_tests():
    """`.ci/run` is the README's test command plus `make lint`."""
    script = (ROOT / ".ci" / "run").read_text()
    assert "make lint" in script and "make test" in script, script
