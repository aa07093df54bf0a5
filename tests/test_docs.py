"""The docs cannot rot: every ```python block of every docs/**/*.md (and of the example plugin's
README) runs, the blocks of one file in order in one namespace (as a reader would paste them
into one session), in a fresh temporary directory, with the registries isolated (the conftest
undoes what they register).
Relative links between the docs and to the repository's files must point at something."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MARKDOWN = sorted(DOCS.rglob("*.md")) + [ROOT / "plugins" / "example_ops" / "README.md"]
FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)\)")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number of the block's first line of code, code) for each ```python block."""
    blocks = []
    for match in FENCE.finditer(text):
        if match.group(1) == "python":
            first_line = text.count("\n", 0, match.start(2)) + 1
            blocks.append((first_line, match.group(2)))
    return blocks


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_docs_are_found_and_blocks_are_extracted():
    assert DOCS / "index.md" in MARKDOWN
    guide = DOCS / "guide" / "custom-ops-kernels-gradients.md"
    assert guide in MARKDOWN
    blocks = python_blocks(guide.read_text())
    assert len(blocks) >= 10
    first_line, code = blocks[0]
    assert guide.read_text().splitlines()[first_line - 1] == code.splitlines()[0]
    assert python_blocks("text\n```python\nx = 1\n```\n```console\n$ ls\n```\n") == [(3, "x = 1\n")]


@pytest.mark.parametrize("path", MARKDOWN, ids=_id)
def test_every_python_block_runs(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "docs_" + re.sub(r"\W", "_", _id(path))
    module = types.ModuleType(name)  # one namespace per file, like one interactive session
    monkeypatch.setitem(sys.modules, name, module)
    for first_line, code in python_blocks(path.read_text()):
        # padded so that tracebacks give the line numbers of the .md file
        compiled = compile("\n" * (first_line - 1) + code, str(path), "exec")
        try:
            exec(compiled, module.__dict__)
        except Exception as exc:
            raise AssertionError(f"the python block at {_id(path)}:{first_line} failed: "
                                 f"{type(exc).__name__}: {exc}") from exc


@pytest.mark.parametrize("path", MARKDOWN, ids=_id)
def test_relative_links_point_at_files(path):
    broken = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor in the page
        if not (path.parent / target.split("#")[0]).exists():
            broken.append(target)
    assert not broken, f"{_id(path)} links to missing files: {broken}"


def test_the_index_links_the_guides():
    index = (DOCS / "index.md").read_text()
    for guide in sorted((DOCS / "guide").glob("*.md")):
        assert f"(guide/{guide.name})" in index, f"docs/index.md does not link guide/{guide.name}"
