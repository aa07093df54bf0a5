"""Hostile plugins as a user meets them (issue 17): real wheels pip-installed into a fresh
virtual environment beside the core and the numpy backend, offline. A plugin named to load
first that registers a wrong ``Add`` for numpy (plainly, and with a higher priority), and one
that raises SystemExit at import: the right kernel runs, each warning names its plugin,
``tensorplug doctor`` names all three with exit status 1 (never the backend), and strict mode
raises the same PluginError at every call. (tests/test_plugin_reliability.py has the same cases
in process, one at a time.)"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from _reader_env import venv_with_wheels
from _wheels import clean_env

HIJACK = """
from tensorplug.extend import API_VERSION, KernelConfig, hookimpl
tensorplug_api_version = API_VERSION

@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("Add", "numpy", lambda inputs, attrs, backend: inputs[0] - inputs[1]){how})
"""
EXITS = "import sys\nsys.exit(3)\n"

PLUGINS = {  # distribution name -> plugin module source
    "aaa-conflict": HIJACK.format(how=""),
    "aab-priority": HIJACK.format(how=", priority=5"),
    "aac-exits": EXITS,
}


def _plugin_folder(root: Path, dist: str, source: str) -> Path:
    """A source tree of distribution `dist` whose module registers under entry point `dist`."""
    module = dist.replace("-", "_")
    folder = root / dist
    (folder / module).mkdir(parents=True)
    (folder / module / "__init__.py").write_text(source)
    (folder / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"

        [project]
        name = "{dist}"
        version = "0.1.0"
        dependencies = ["tensorplug-core"]

        [project.entry-points.tensorplug]
        {dist} = "{module}"
        """))
    return folder


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with core, the numpy backend and the three hostile plugins, as wheels."""
    tmp = tmp_path_factory.mktemp("hostile")
    plugins = [str(_plugin_folder(tmp / "src", d, s)) for d, s in PLUGINS.items()]
    return venv_with_wheels(["core", "plugins/cpu_numpy", *plugins], tmp)


def _python(python: Path, code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-c", code], cwd=cwd, env={**clean_env(), **env},
                          capture_output=True, text=True)


USE = """
import tensorplug as tp
print(tp.add(tp.asarray([1, 2]), tp.asarray([10, 20])).tolist())
print(tp.sum(tp.asarray([1.0, 2.0])).item())
print(tp.grad(lambda x: tp.sum(x * x))(tp.asarray([3.0])).tolist())
from tensorplug.core.runtime import current
print(current().kernels.registration(("Add", "numpy")).source)
"""


@pytest.mark.slow
def test_the_backends_own_kernels_run_and_each_warning_names_its_plugin(venv_python, tmp_path):
    proc = _python(venv_python, USE, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[11, 22]", "3.0", "[6.0]", "tensorplug-backend-numpy"]
    for dist in PLUGINS:
        assert proc.stderr.count(f"plugin '{dist}' (distribution {dist})") == 1, proc.stderr
    assert "SystemExit: 3" in proc.stderr
    assert proc.stderr.count("override=True") >= 2  # both hijackers are told the way out


@pytest.mark.slow
def test_doctor_names_each_plugin_and_not_the_backend(venv_python, tmp_path):
    doctor = venv_python.parent / "tensorplug"
    proc = subprocess.run([str(doctor), "doctor"], cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr == ""
    for dist in PLUGINS:
        assert f"plugin '{dist} 0.1.0'" in proc.stdout, proc.stdout  # (entry point = distribution)
    assert "plugin 'tensorplug-backend-numpy" not in proc.stdout
    assert "SystemExit: 3" in proc.stdout


STRICT_USE = """
import tensorplug as tp
from tensorplug.errors import PluginError
for attempt in range(3):
    try:
        tp.add(tp.asarray([1, 2]), tp.asarray([10, 20]))
    except PluginError as exc:
        print(attempt, str(exc).splitlines()[0])
    else:
        print(attempt, "no error")
"""


@pytest.mark.slow
def test_strict_mode_raises_the_same_plugin_error_at_every_call(venv_python, tmp_path):
    proc = _python(venv_python, STRICT_USE, tmp_path, TENSORPLUG_STRICT_PLUGINS="1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["0", "1", "2"]
    messages = {line.split(" ", 1)[1] for line in lines}
    assert len(messages) == 1 and "no error" not in messages, lines
