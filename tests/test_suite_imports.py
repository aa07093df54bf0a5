"""The test suite imports only what `make test` installs: every module a test file imports (or
asks pytest.importorskip for) is the standard library, a file of tests/, or comes with
requirements-dev.txt and the project's distributions. A peer used only for benchmarks (torch)
would pass on a machine that has it and fail in CI's clean environment."""

from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from _reader_env import dependency_closure

TESTS = Path(__file__).parent
ROOT = TESTS.parent
# what the Makefile's `test` target installs besides requirements-dev.txt
PROJECT = ["tensorplug-core[demo,save]", "tensorplug-backend-numpy", "tensorplug-example-ops",
           "tensorplug-backend-torch"]
if sys.version_info >= (3, 11):
    PROJECT.append("tensorplug-backend-jax")


def _imported_modules(path: Path) -> set[str]:
    """Top-level names imported, leaving out imports under `if sys.version_info ...` (made for
    another Python, whose requirement carries a marker)."""
    tree = ast.parse(path.read_text(), str(path))
    other_python = {id(inner) for node in ast.walk(tree)
                    if isinstance(node, ast.If) and "version_info" in ast.unparse(node.test)
                    for inner in ast.walk(node)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in other_python:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "importorskip"
              and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(node.args[0].value.split(".")[0])
    return names


def _installed_by_make_test() -> set[str]:
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements-dev.txt").read_text().splitlines()]
    requirements = [Requirement(r) for r in lines if r]
    requirements = [str(r) for r in requirements if r.marker is None or r.marker.evaluate()]
    return {name.lower().replace("_", "-") for name in dependency_closure(requirements + PROJECT)}


def test_tests_import_only_what_make_test_installs():
    local = {p.stem for p in TESTS.glob("*.py")}
    installed = _installed_by_make_test()
    providers = metadata.packages_distributions()
    strays = {}
    for path in sorted(TESTS.glob("*.py")):
        for name in _imported_modules(path) - local - set(sys.stdlib_module_names) - {"__future__"}:
            dists = {d.lower().replace("_", "-") for d in providers.get(name, [])}
            if not dists & installed:
                strays.setdefault(name, []).append(path.name)
    assert not strays, (
        f"tests import modules that `make test` does not install: {strays}; add the distribution to "
        "requirements-dev.txt (or a project dependency), or test without it")
