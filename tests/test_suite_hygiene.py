"""The test run writes only into temporary folders it removes: jax's compilation cache is a
folder made for this run (conftest.py), not a fixed one left in the temp directory."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_jax_cache_is_made_for_this_run():
    cache = Path(os.environ["JAX_COMPILATION_CACHE_DIR"])
    assert cache.is_dir()
    assert cache.parent == Path(tempfile.gettempdir())
    assert cache.name.startswith("tensorplug-tests-jax-cache-")
    assert cache.name != "tensorplug-tests-jax-cache-"


def test_a_run_removes_its_jax_cache(tmp_path):
    """A pytest run of its own (no inherited cache folder) leaves none behind."""
    (tmp_path / "test_probe.py").write_text(
        "import os\n"
        "def test_probe():\n"
        "    print('CACHE=' + os.environ['JAX_COMPILATION_CACHE_DIR'])\n"
        "    assert os.path.isdir(os.environ['JAX_COMPILATION_CACHE_DIR'])\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "TP_TESTS_"))}
    env["PYTHONPATH"] = str(ROOT / "tests")  # the suite's conftest, loaded as a plugin (-p)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                          "-p", "conftest", "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
                         env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    cache = next(line[6:] for line in run.stdout.splitlines() if line.startswith("CACHE="))
    assert not os.path.exists(cache), f"the run left {cache}"
