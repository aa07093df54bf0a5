"""The long fuzz (tests/fuzz/fuzz_public_api.py, run by hand) runs and prints its totals: a
smoke run on one callable and one backend; a call past its time is counted as a hang and the
fuzz goes on in a fresh worker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "fuzz" / "fuzz_public_api.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--backend", "numpy", "--only", "tp.nn.elu", *args],
                          capture_output=True, text=True)


def test_the_long_fuzz_prints_its_totals() -> None:
    proc = _run("--calls", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fuzz of the public API: 3 calls per callable" in proc.stdout
    for line in ("raw exceptions: 0", "crashes: 0", "hangs: 0"):
        assert line in proc.stdout.splitlines(), proc.stdout


def test_a_call_past_its_time_is_a_hang_and_the_fuzz_goes_on() -> None:
    proc = _run("--calls", "2", "--timeout", "0.000001")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "hangs: 2" in proc.stdout.splitlines() and proc.stdout.count("  numpy  tp.nn.elu(") == 2
