"""docs/guide/writing-a-backend.md runs: its python blocks, in order, in one namespace, from an
empty temporary folder (they write a backend distribution, install it into a folder and run the
conformance kit on it, asserting what the text says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "writing-a-backend.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == "python"]


def test_the_guide_has_runnable_blocks_for_every_step():
    text = GUIDE.read_text()
    blocks = python_blocks(text)
    assert len(blocks) >= 10
    for needle in ("[project.entry-points.tensorplug]", "class TinyBackend(Backend)",
                   "tensorplug_api_version",
                   "def tensorplug_backends", "def tensorplug_kernels", "--tensorplug-backend",
                   "[tool.tensorplug.conformance]", "opcheck("):
        assert any(needle in b for b in blocks), f"no python block of the guide contains {needle!r}"


@pytest.mark.slow
def test_the_guide_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__guide__"}
    for i, block in enumerate(python_blocks(GUIDE.read_text())):
        try:
            exec(compile(block, f"{GUIDE.name}, python block {i + 1}", "exec"), namespace)
        except Exception as exc:
            out = capsys.readouterr().out
            raise AssertionError(f"python block {i + 1} of {GUIDE.name} failed: {exc!r}\n"
                                 f"--- block ---\n{block}\n--- its output ---\n{out[-4000:]}") from exc
    final = namespace["final"]
    assert re.search(r"5 implemented; 0 passing, 0 failing, 5 blocked, 0 missing, \d+ excluded", final.stdout)
    assert (tmp_path / "site" / "tensorplug_tiny" / "plugin.py").is_file()
    assert list((tmp_path / "site").glob("tensorplug_backend_tiny-0.1.0.dist-info"))
