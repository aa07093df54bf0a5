"""The docs cannot rot: every ```python block of every docs/**/*.md (and of the example plugin's
README) runs, the blocks of one file in order in one namespace (as a reader would paste them
into one session), in a fresh temporary directory, in a fresh environment that holds what the
page's ``pip install`` line installs (tests/_reader_env.py).
Relative links between the docs and to the repository's files must point at something."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from _reader_env import dependency_closure, install_line, reader_python, run_blocks

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


#: pages whose blocks another test runs, with more checks (tests/test_conformance_guide.py)
RUN_ELSEWHERE = {DOCS / "guide" / "writing-a-backend.md"}
RUNNABLE = [pytest.param(p, id=_id(p), marks=[pytest.mark.jax] if "tensorplug-backend-jax" in
                          install_line(p.read_text()) else [])
            for p in MARKDOWN if python_blocks(p.read_text()) and p not in RUN_ELSEWHERE]


@pytest.mark.parametrize("path", RUNNABLE)
def test_every_python_block_runs_where_the_page_says(path, tmp_path):
    """In a fresh environment holding what the page's ``pip install`` line installs and
    nothing else, so an import the line does not cover fails here."""
    python = reader_python(install_line(path.read_text()), tmp_path)
    (tmp_path / "work").mkdir()
    run = run_blocks(python, path, cwd=tmp_path / "work")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-6000:]


def test_install_lines_are_read_and_cover_their_extras(tmp_path):
    assert install_line("```console\n$ pip install 'a[b]' c  # or: pip install ./a\n```\n") == ["a[b]", "c"]
    with_kit = dependency_closure(install_line((DOCS / "guide" / "writing-a-backend.md").read_text()))
    assert {"pytest", "hatchling", "tensorplug-backend-numpy", "numpy", "pluggy"} <= with_kit
    assert "scikit-learn" not in with_kit and "tensorplug-backend-jax" not in with_kit
    # a page whose line forgets a distribution its blocks import fails
    page = tmp_path / "page.md"
    page.write_text("```console\n$ pip install tensorplug-core\n```\n```python\nimport sklearn\n```\n")
    python = reader_python(install_line(page.read_text()), tmp_path)
    run = run_blocks(python, page, cwd=tmp_path)
    assert run.returncode != 0 and "No module named 'sklearn'" in run.stderr


@pytest.mark.parametrize("path", MARKDOWN + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"], ids=_id)
def test_relative_links_point_at_files_in_the_repository(path):
    broken = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor in the page
        file = (path.parent / target.split("#")[0]).resolve()
        if not (file.exists() and file.is_relative_to(ROOT)):
            broken.append(target)
    assert not broken, f"{_id(path)} links to missing files or files outside the repository: {broken}"


def test_the_index_links_the_guides():
    index = (DOCS / "index.md").read_text()
    for guide in sorted((DOCS / "guide").glob("*.md")):
        assert f"(guide/{guide.name})" in index, f"docs/index.md does not link guide/{guide.name}"


# -- the reference site --------------------------------------------------------------------

#: the namespaces the API reference documents (docs/reference/*.md, one page each)
REFERENCE_NAMESPACES = ["tensorplug", "tensorplug.nn", "tensorplug.linalg", "tensorplug.fft",
                        "tensorplug.random", "tensorplug.optimizers", "tensorplug.extend",
                        "tensorplug.testing"]
REFERENCE_NAMESPACES += ["tensorplug.losses"]
REFERENCE_NAMESPACES += ["tensorplug.sparse"]
REFERENCE_NAMESPACES += ["tensorplug.image"]
REFERENCE_NAMESPACES += ["tensorplug.tree_util"]
REFERENCE_NAMESPACES += ["tensorplug.nn.initializers"]
REFERENCE_NAMESPACES += ["tensorplug.data", "tensorplug.metrics", "tensorplug.callbacks"]
REFERENCE_NAMESPACES += ["tensorplug.export"]


def namespace_module(name: str) -> object:
    """The module `name`, or the one public as its parent's attribute (tp.nn.initializers), as
    docs/hooks/api_pages.py finds it."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        parent, _, attribute = name.rpartition(".")
        return getattr(importlib.import_module(parent), attribute)


def public_callables() -> list[tuple[str, object]]:
    """(dotted name, object) for every class and function in the __all__ of the documented
    namespaces, and every public method and property those classes define themselves."""
    import dataclasses
    import inspect
    import types

    found = []
    for namespace in REFERENCE_NAMESPACES:
        module = namespace_module(namespace)
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, types.GenericAlias) or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # modules, constants, dtypes, type aliases (a class on Python 3.10)
            found.append((f"{namespace}.{name}", obj))
            if not inspect.isclass(obj) or not obj.__module__.startswith("tensorplug"):
                continue
            fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
            for attr, value in vars(obj).items():
                if attr.startswith("_") or attr in fields:
                    continue
                if isinstance(value, property):
                    found.append((f"{namespace}.{name}.{attr}", value.fget))
                elif isinstance(value, (staticmethod, classmethod)) or inspect.isfunction(value):
                    found.append((f"{namespace}.{name}.{attr}", getattr(value, "__func__", value)))
    return found


def test_every_public_callable_states_its_contract():
    found = dict(public_callables())
    assert {"tensorplug.add", "tensorplug.exp", "tensorplug.nn.softmax", "tensorplug.random.normal",
            "tensorplug.optimizers.Adam", "tensorplug.extend.register_kernel", "tensorplug.testing.opcheck",
            "tensorplug.Tensor.shape", "tensorplug.Variable.assign"} <= set(found)
    missing = sorted(name for name, obj in found.items() if not (obj.__doc__ or "").strip())
    assert not missing, f"{len(missing)} public callables have no docstring: {missing}"


@pytest.mark.slow
def test_the_reference_site_builds_offline_with_warnings_as_errors(tmp_path):
    """``mkdocs build --strict`` (as ``make docs``) with every network connection refused in
    the building process, so a theme or plugin that fetches fails here; then every documented
    callable of the namespaces is on its page with its docstring's first line."""
    import html
    import subprocess

    site = tmp_path / "site"
    no_network = (
        "import runpy, socket, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError(f'the docs build tried to reach the network: {args}')\n"
        "socket.socket.connect = socket.socket.connect_ex = refuse\n"
        "socket.create_connection = socket.getaddrinfo = refuse\n"
        f"sys.argv = ['mkdocs', 'build', '--strict', '--site-dir', {str(site)!r}]\n"
        "runpy.run_module('mkdocs', run_name='__main__')\n"
    )
    run = subprocess.run([sys.executable, "-c", no_network], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-8000:]
    # no link of the site is dead: the README, CONTRIBUTING and the plugins' READMEs the guides
    # link to are built under repo/ (docs/hooks/repository_pages.py)
    dead = [line for line in run.stderr.splitlines() if "not found among documentation files" in line]
    assert not dead, "\n".join(dead)
    assert 'href="repo/CONTRIBUTING/"' in (site / "index.html").read_text()
    assert (site / "repo" / "plugins" / "example_ops" / "index.html").is_file()

    def letters(text: str) -> str:  # markup aside: what markdown rendered, punctuation
        return re.sub(r"[^0-9A-Za-z]", "", text)

    pages = {namespace: letters(html.unescape(re.sub(r"<[^>]+>", "", (
                 site / "reference" / namespace.removeprefix("tensorplug.") / "index.html").read_text())))
             for namespace in REFERENCE_NAMESPACES}
    absent = []
    for name, obj in public_callables():
        namespace = max((n for n in REFERENCE_NAMESPACES if name.startswith(n + ".")), key=len)
        first_line = letters((obj.__doc__ or "").strip().splitlines()[0])[:30]
        if first_line not in pages[namespace]:
            absent.append(name)
    assert not absent, f"not on the reference site: {absent}"
