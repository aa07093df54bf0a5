"""The distributions as users get them: wheels of core and the numpy plugin, installed into a
fresh virtual environment (not editable), found through the entry point; the issue's one-liner."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DISTS = [ROOT / "core", ROOT / "plugins" / "cpu_numpy"]
ONE_LINER = ('import tensorplug as tp; x = tp.asarray([1.0, 2.0]); '
             'print(tp.grad(lambda x: tp.sum(tp.tanh(x) ** 2))(x))')


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TENSORPLUG_", "PYTHON", "VIRTUAL_ENV", "PIP_REQUIRE"))}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding the two wheels and their dependencies."""
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    # hatchling is a dev requirement: build here, without an isolated build environment
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
          "--wheel-dir", str(wheels), *map(str, DISTS)], cwd=tmp)
    built = sorted(wheels.glob("*.whl"))
    assert [w.name.split("-")[0] for w in built] == ["tensorplug_backend_numpy", "tensorplug_core"]
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)  # ensurepip alone takes ~10 s
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # this environment's pip installs into the new one (--python); our wheels by path (never a
    # same-named project from an index); numpy, pluggy and importlib-metadata from pip's
    # configured index (PyPI unless configured otherwise; its cache makes re-runs fast), as
    # binaries only
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--disable-pip-version-check", "--only-binary", ":all:", *map(str, built)], cwd=tmp)
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    proc = subprocess.run([str(script), "demo"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert "pip install 'tensorplug-core[demo]'" in proc.stderr
