"""Running the conformance kit the way a backend author does, in a subprocess:
``python -m pytest --pyargs tensorplug.testing.conformance --tensorplug-backend NAME ...``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KitRun", "run_kit"]


@dataclass(frozen=True)
class KitRun:
    returncode: int
    stdout: str
    stderr: str

    @property
    def summary(self) -> str:
        """The kit's closing summary (from its '= tensorplug conformance =' line on)."""
        start = self.stdout.find("= tensorplug conformance =")
        assert start >= 0, f"no summary in the output:\n{self.stdout[-3000:]}\n{self.stderr[-3000:]}"
        end = self.stdout.find("\n=", start + 30)
        return self.stdout[start:end if end >= 0 else None]

    def failure(self, test_id: str) -> str:
        """The failure section of one test, e.g. 'test_kernel[Sin]'."""
        head = re.search(rf"_+ {re.escape(test_id)} _+\n", self.stdout)
        assert head, f"no failure section for {test_id}:\n{self.stdout[-3000:]}"
        rest = self.stdout[head.end():]
        nxt = re.search(r"\n_{3,} \S+ _{3,}\n|\n={3,} ", rest)
        return rest[:nxt.start()] if nxt else rest


def run_kit(backend: str, *options: str, cwd: Path, pythonpath: Path | None = None) -> KitRun:
    """Run the kit for `backend` in `cwd` (its rootdir), with `pythonpath` prepended."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORPLUG_", "PYTEST_"))}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "tensorplug.testing.conformance",
           "--tensorplug-backend", backend, "-p", "no:cacheprovider", "-q", "-W", "error", *options]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return KitRun(proc.returncode, proc.stdout, proc.stderr)
