"""The distributions as users get them: wheels of core and the numpy plugin, installed into a
fresh virtual environment (not editable), found through the entry point; the issue's one-liner.

Offline: the wheels are built here, pip runs with ``--no-index``, and the new environment sees
its dependencies (numpy, pluggy, importlib-metadata, optree and theirs, nothing else) through a
``.pth`` file naming a folder of links to what the test environment has installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from _reader_env import venv_with_wheels
from _wheels import clean_env
from _wheels import run as _run

DISTS = ["core", "plugins/cpu_numpy"]
ONE_LINER = ('import tensorplug as tp; x = tp.asarray([1.0, 2.0]); '
             'print(tp.grad(lambda x: tp.sum(tp.tanh(x) ** 2))(x))')


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding the two wheels, and their dependencies, offline."""
    tmp = tmp_path_factory.mktemp("install")
    python = venv_with_wheels(DISTS, tmp)
    wheels = sorted(w.name.split("-")[0] for w in (tmp / "wheels").glob("*.whl"))
    assert wheels == ["tensorplug_backend_numpy", "tensorplug_core"]
    return python


@pytest.mark.slow
def test_one_liner_in_a_fresh_venv(installed: Path, tmp_path: Path) -> None:
    out = _run([str(installed), "-c", ONE_LINER], cwd=tmp_path).stdout.strip()
    assert out.startswith("[") and out.endswith("]"), out
    got = np.array(out[1:-1].split(), dtype=np.float64)
    x = np.array([1.0, 2.0])
    want = 2 * np.tanh(x) * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.slow
def test_installed_not_editable_and_found_through_the_entry_point(installed: Path, tmp_path: Path) -> None:
    code = (
        "import sys, tensorplug as tp; "
        "print(tp.__file__); "
        "print('tensorplug_numpy' in sys.modules); "
        "print(tp.list_backends()[0]); "
        "import tensorplug_numpy; print(tensorplug_numpy.__file__); "
        "from importlib.metadata import entry_points; "
        "print([e.value for e in entry_points(group='tensorplug')])"
    )
    lines = _run([str(installed), "-c", code], cwd=tmp_path).stdout.splitlines()
    venv_dir = installed.parent.parent
    assert Path(lines[0]).is_relative_to(venv_dir), f"tensorplug imported from {lines[0]}"
    assert lines[1] == "False", "import tensorplug imported a plugin"
    assert lines[2] == "numpy"
    assert Path(lines[3]).is_relative_to(venv_dir)
    assert lines[4] == "['tensorplug_numpy.plugin']"


@pytest.mark.slow
def test_console_script_without_demo_extras(installed: Path, tmp_path: Path) -> None:
    script = installed.parent / ("tensorplug.exe" if os.name == "nt" else "tensorplug")
    assert "demo" in _run([str(script)], cwd=tmp_path).stdout
    proc = subprocess.run([str(script), "demo"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True)
    assert proc.returncode != 0
    assert "pip install 'tensorplug-core[demo]'" in proc.stderr
