"""The test run keeps jax's compilation cache in the virtual environment that runs it
(`make test`: .venv/jax-cache), so that a second run compiles nothing again; outside a virtual
environment it uses a temporary folder of its own, which it removes (conftest.py). No test
depends on a wall-clock limit that a busy machine can trip."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from conftest import jax_cache_dir

ROOT = Path(__file__).resolve().parents[1]
PROBE = ("import os\n"
         "def test_probe():\n"
         "    print('CACHE=' + os.environ['JAX_COMPILATION_CACHE_DIR'])\n"
         "    assert os.path.isdir(os.environ['JAX_COMPILATION_CACHE_DIR'])\n")


def _probe_run(python: Path, tmp_path: Path) -> Path:
    """A pytest run of its own under `python` (no inherited cache folder): where its cache was."""
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "TP_TESTS_"))}
    # the suite's conftest, loaded as a plugin (-p), and this interpreter's packages
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), sysconfig.get_paths()["purelib"],
                                         *filter(None, [env.get("PYTHONPATH")])])
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                          "-p", "conftest", "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
                         env=env, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return Path(next(line[6:] for line in run.stdout.splitlines() if line.startswith("CACHE=")))


def test_the_cache_folder_is_in_a_virtual_environment_only(tmp_path):
    assert jax_cache_dir(str(tmp_path), "/usr") == tmp_path / "jax-cache"
    assert jax_cache_dir(str(tmp_path), str(tmp_path)) is None
    assert jax_cache_dir("/proc/no-such-venv", "/usr") is None  # (not writable)


def test_a_run_in_a_virtual_environment_keeps_its_jax_cache_there(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    cache = _probe_run(venv / "bin" / "python", tmp_path)
    assert cache == venv / "jax-cache"
    assert cache.is_dir(), "the run removed the kept cache"


def test_a_run_outside_a_virtual_environment_removes_its_jax_cache(tmp_path):
    base_python = Path(getattr(sys, "_base_executable", sys.executable))
    cache = _probe_run(base_python, tmp_path)
    assert cache.name.startswith("tensorplug-tests-jax-cache-")
    assert not cache.exists(), f"the run left {cache}"


def test_no_test_holds_anything_to_a_wall_clock_limit():
    """No subprocess timeout, no elapsed-time assertion: on a busy machine (two cores shared by
    many) a correct run can take any time; speed is measured in benchmarks/."""
    limits = re.compile(r"\btime" r"out\s*=|perf_counter\(\)\s*-\s*\w+\s*<")
    found = [f"{path.name}:{n}: {line.strip()}" for path in sorted((ROOT / "tests").glob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) if limits.search(line)]
    assert not found, "\n".join(found)


def test_the_quick_tier_leaves_out_every_test_on_jax():
    """`make test-quick` selects -m "not slow and not jax": tests run on the jax backend (by
    `tp_backend` or another parameter) and modules that compare with jax carry the marker
    (conftest.py); the tests on numpy stay."""
    modules = ["tests/test_kernels_linspace.py", "tests/test_jax_jit.py", "tests/test_saving.py",
               "tests/test_jvps_nn.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-m", "not slow and not jax", *modules], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    ids = [line for line in run.stdout.splitlines() if "::" in line]
    assert not [i for i in ids if "jax" in i or "test_jvps_nn" in i], ids
    assert any("test_kernels_linspace" in i and "numpy" in i for i in ids), ids
    assert any("test_saving" in i and "[numpy-numpy]" in i for i in ids), ids
