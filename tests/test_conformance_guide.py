"""docs/guide/writing-a-backend.md runs: its python blocks, in order, in one namespace, from an
empty temporary folder, in an environment holding only what its install line says (they write
a backend distribution, install it into a folder and run the conformance kit on it, asserting
what the text says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _reader_env import install_line, reader_python, run_blocks

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "writing-a-backend.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == "python"]


def summary_sample(marker: str) -> list[str]:
    """The lines of the guide's sample of a kit summary holding `marker` (a text block)."""
    text = [body for lang, body in FENCE.findall(GUIDE.read_text()) if lang == "text"]
    sample = next(body for body in text if "tensorplug conformance" in body and marker in body)
    return [line for line in sample.splitlines() if line.strip() and "tensorplug conformance" not in line]


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
def test_the_guide_runs_where_it_says(tmp_path):
    """In a fresh environment holding what the guide's ``pip install`` line installs (and
    nothing else: no jax, no scikit-learn), from an empty folder."""
    python = reader_python(install_line(GUIDE.read_text()), tmp_path / "env")
    work = tmp_path / "work"
    work.mkdir()
    run = run_blocks(python, GUIDE, cwd=work,
                     epilogue="print('LAZY:', lazy)\nprint('FIRST:', summary)\nprint('FINAL:', final.stdout)")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-6000:]
    final = run.stdout[run.stdout.index("FINAL:"):]
    # section 13: plugin discovery registers the strict backend without importing its library
    # (checked in a fresh process, through sys.modules); its first use imports it
    discovered, used = run.stdout[run.stdout.index("LAZY:"):].removeprefix("LAZY: ").splitlines()[:2]
    assert discovered == "['numpy', 'strict', 'tiny'] False", discovered
    assert used.startswith("True array_api_strict._array_object tp.float32 [3.0, 6.43656"), used
    assert re.search(r"5 implemented; 0 passing, 0 failing, 5 blocked, 0 missing, \d+ excluded", final)
    # sections 8 and 9's samples of the summary are what the kit printed (a line the guide cuts
    # with "..." is compared up to there)
    first = run.stdout[run.stdout.index("FIRST:"):run.stdout.index("FINAL:")]
    for printed, sample in ((first, summary_sample("1 failing")), (final, summary_sample("0 missing"))):
        shown = printed[printed.index("=" * 10):].splitlines()
        for line in sample:
            cut = line.split("...")[0]
            assert any(got.startswith(cut) if line.endswith("...") else got == line for got in shown), (
                "\n".join(shown))
    assert (work / "site" / "tensorplug_tiny" / "plugin.py").is_file()
    assert list((work / "site").glob("tensorplug_backend_tiny-0.1.0.dist-info"))
