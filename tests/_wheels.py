"""Wheels of this repository's distributions, built as a user's pip would (hatchling, a dev
requirement, without an isolated build environment: no index needed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clean_env() -> dict[str, str]:
    """This process's environment without tensorplug's, Python's or a virtualenv's settings."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("TENSORPLUG_", "PYTHON", "VIRTUAL_ENV", "PIP_REQUIRE"))}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `cmd`; its output in the assertion message when it fails."""
    proc = subprocess.run(cmd, cwd=cwd, env=clean_env(), capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def build_wheels(folders: list[str], dest: Path) -> list[Path]:
    """One wheel per distribution folder (relative to the repository), in `dest`, sorted; a
    wheel is pure Python, so also one whose Requires-Python excludes this interpreter."""
    run([sys.executable, "-m", "pip", "--isolated", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "--ignore-requires-python", "--quiet", "--wheel-dir", str(dest),
         *(str(ROOT / f) for f in folders)], cwd=dest.parent)
    return sorted(dest.glob("*.whl"))
