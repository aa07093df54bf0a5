"""What ``import tensorplug`` costs, beside ``import numpy`` (which it imports).

    python benchmarks/import_bench.py            (or: make bench; --runs N, default 20)

Each import runs in a fresh interpreter, the two alternating, and is timed inside it (the
interpreter's own start-up left out): wall time, and the process's CPU time, which moves less
on a busy machine. The medians of the runs are printed with their difference. Bytecode is
cached in a temporary folder (written by one untimed run of each), so that the figures do not
depend on PYTHONDONTWRITEBYTECODE or on a source tree's __pycache__. Target (issue
37): tensorplug no more than 50 ms above numpy, on an idle machine. The interpreter is the
one running this script: run it where tensorplug is installed (or on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

BUDGET_MS = 50.0
_TIMED = ("import time; t, c = time.perf_counter(), time.process_time(); import {module}; "
          "print(time.perf_counter() - t, time.process_time() - c)")


def import_time(module: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds `module`'s import takes in a fresh interpreter: wall time and CPU time."""
    proc = subprocess.run([sys.executable, "-c", _TIMED.format(module=module)], capture_output=True,
                          text=True, check=True, env=env)
    wall, cpu = proc.stdout.split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="fresh interpreters per module (default 20)")
    runs = parser.parse_args().runs
    times: dict[str, list[tuple[float, float]]] = {"numpy": [], "tensorplug": []}
    with tempfile.TemporaryDirectory(prefix="import-bench-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for module in times:
            import_time(module, env)  # (writes the bytecode cache)
        for _ in range(runs):
            for module, found in times.items():
                found.append(import_time(module, env))
    print(f"medians of {runs} fresh interpreters each      wall ms   CPU ms")
    medians = {}
    for module, found in times.items():
        medians[module] = [statistics.median(t[i] for t in found) * 1e3 for i in (0, 1)]
        print(f"import {module:<12}                     {medians[module][0]:7.1f}  {medians[module][1]:7.1f}")
    wall, cpu = (medians["tensorplug"][i] - medians["numpy"][i] for i in (0, 1))
    print(f"difference                              {wall:7.1f}  {cpu:7.1f}   (budget {BUDGET_MS:.0f} ms "
          f"of wall time: {'within' if wall <= BUDGET_MS else 'OVER'})")


if __name__ == "__main__":
    main()
