"""`make test` installs what the interpreter can run: the jax backend only on Python >= 3.11
(jax supports no older Python), everything else on 3.10 too. Checked with `make -n` (print,
do not run) and a stand-in interpreter that reports a version."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def planned_installs(version: str, tmp_path: Path) -> str:
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho {version}\n")
    fake.chmod(0o755)
    run = subprocess.run(["make", "-n", "-C", str(ROOT), "test", f"PYTHON={fake}",
                          f"VENV={tmp_path / 'venv'}"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return "\n".join(line for line in run.stdout.splitlines() if " install " in line)


@pytest.mark.parametrize(("version", "with_jax"), [("3.10", False), ("3.11", True), ("3.13", True)])
def test_make_test_installs_the_jax_backend_only_where_jax_runs(version, with_jax, tmp_path):
    installs = planned_installs(version, tmp_path)
    assert "./plugins/cpu_numpy" in installs and "./plugins/example_ops" in installs, installs
    assert ("./plugins/jax_backend" in installs) is with_jax, installs


def test_make_test_lists_the_slowest_tests_and_test_quick_leaves_out_slow_and_jax(tmp_path):
    def pytest_line(target: str) -> str:
        run = subprocess.run(["make", "-n", "-C", str(ROOT), target, f"VENV={tmp_path / 'venv'}"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return next(line for line in run.stdout.splitlines() if " -m pytest " in line)

    assert "--durations=20" in pytest_line("test")
    assert "-m \"not slow and not jax\"" in pytest_line("test-quick")
