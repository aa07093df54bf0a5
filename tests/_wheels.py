"""Wheels of this repository's distributions, built as a user's pip would (hatchling, a dev
requirement, without an isolated build environment: no index needed)."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
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


#: the repository's wheels built so far in this test process, by folder: each is built once
#: (the packaging, install and hostile-plugin tests all need core's) and copied where asked
_BUILT: dict[str, Path] = {}


def _build(folders: list[str], dest: Path) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("*.whl"))
    run([sys.executable, "-m", "pip", "--isolated", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "--ignore-requires-python", "--quiet", "--wheel-dir", str(dest),
         *(str(ROOT / f) for f in folders)], cwd=dest.parent)
    return sorted(set(dest.glob("*.whl")) - before)


def build_wheels(folders: list[str], dest: Path) -> list[Path]:
    """One wheel per distribution folder (relative to the repository, or absolute), in `dest`,
    sorted; a wheel is pure Python, so also one whose Requires-Python excludes this
    interpreter. A repository folder's wheel is built once per test process."""
    dest.mkdir(parents=True, exist_ok=True)
    ours = [f for f in folders if not Path(f).is_absolute()]
    for folder in ours:
        if folder not in _BUILT:
            cache = Path(tempfile.mkdtemp(prefix="tensorplug-wheel-"))
            atexit.register(shutil.rmtree, cache, True)
            (wheel,) = _build([folder], cache)
            _BUILT[folder] = wheel
        shutil.copy2(_BUILT[folder], dest)
    others = [f for f in folders if Path(f).is_absolute()]
    if others:
        _build(others, dest)
    return sorted(dest.glob("*.whl"))
