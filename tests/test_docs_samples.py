"""The guides' sample outputs are what the commands print: the custom-ops guide's `tensorplug
doctor` block is run in an environment holding what the page's `pip install` line installs and
compared line by line (a stale sample fails here, as issue 36 found one: 1 override shown, 2 in
force)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from _reader_env import install_line, reader_python

DOCS = Path(__file__).resolve().parents[1] / "docs"


def console_sample(page: Path, command: str) -> list[str]:
    """The lines a console block of `page` shows after ``$ <command>`` (up to the block's end)."""
    text = page.read_text()
    match = re.search(r"^```console\n\$ " + re.escape(command) + r"\n(.*?)^```", text, re.S | re.M)
    assert match, f"{page.name} has no console block starting with `$ {command}`"
    return match.group(1).rstrip("\n").splitlines()


def test_the_custom_ops_guides_doctor_sample_is_what_doctor_prints(tmp_path):
    page = DOCS / "guide" / "custom-ops-kernels-gradients.md"
    python = reader_python(install_line(page.read_text()), tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    run = subprocess.run([str(python), "-m", "tensorplug.cli", "doctor"], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert run.stdout.rstrip("\n").splitlines() == console_sample(page, "tensorplug doctor"), run.stdout
