"""Imports flow one way (STYLE.md rule 18): no import circle between the modules of tensorplug and
of its first-party plugins, and no import inside a function except of an optional dependency.

The graph is read from the source with `ast`: an edge `a -> b` is a module-level import in `a`
that names module `b` (``from p import m`` names the module ``p.m`` when there is one, else the
package ``p``); imports under ``if TYPE_CHECKING:`` are left out, as they never run. Importing
``p.m`` also runs ``p/__init__.py`` first, so it is an edge to the package ``p`` too, unless
`a` is in ``p`` itself or ``p`` is a top-level package (``tensorplug/__init__.py`` gathers the
public API from everything below it: that one direction is how a package is made).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = {
    "tensorplug": REPO / "core/src/tensorplug",
    "tensorplug_numpy": REPO / "plugins/cpu_numpy/src/tensorplug_numpy",
    "tensorplug_jax": REPO / "plugins/jax_backend/src/tensorplug_jax",
    "tensorplug_example_ops": REPO / "plugins/example_ops/src/tensorplug_example_ops",
    "tensorplug_torch": REPO / "plugins/torch_backend/src/tensorplug_torch",
}
#: the dependencies a module may import inside a function: not installed with tensorplug-core
#: (or with the plugin), or heavy to load, so importing them at the top would make every user
#: of the package wait for them or need them. A first-party module that imports one of these at
#: its top counts as one too (the JAX backend's kernels, imported when the backend starts).
#: importlib_metadata is installed with tensorplug-core but heavy to load (~9 ms CPU of
#: ``import tensorplug``, against issue 37's budget of 50 ms above numpy; the stdlib's
#: importlib.metadata costs more), and only the scan of the entry points at the first backend
#: use needs it.
OPTIONAL_DEPENDENCIES = {"jax", "jaxlib", "ml_dtypes", "pytest", "safetensors", "sklearn", "tqdm",
                         "rich", "torch", "importlib_metadata", "onnx", "onnxruntime"}

#: the function-local imports of first-party modules allowed, by importing module, each with why
ALLOWED_LOCAL_IMPORTS: dict[str, set[str]] = {
    # the plugin's conformance references are written with the testing kit (tensorplug.testing,
    # ~40 modules): loaded when the kit asks for them, not whenever the plugin loads
    "tensorplug_example_ops.plugin": {"tensorplug_example_ops.references"},
}


def modules() -> dict[str, tuple[Path, bool]]:
    """Every first-party module: its file and whether it is a package."""
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = modules()


def named_modules(module: str, is_package: bool, node: ast.Import | ast.ImportFrom,
                  packages: bool = True) -> Iterator[str]:
    """The modules an import statement names (first-party ones by their module, others by their
    top name), and with `packages` the first-party packages it runs."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = module.split(".") if is_package else module.split(".")[:-1]
        if node.level:
            base = base[: len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        targets = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in MODULES else prefix
                   for alias in node.names]
    for target in targets:
        if target.split(".")[0] not in SOURCES:
            yield target.split(".")[0]
            continue
        while target not in MODULES:
            target = target.rpartition(".")[0]
        yield target
        parts = target.split(".") if packages else []
        for end in range(2, len(parts)):  # the packages importing it runs (not the top one)
            package = ".".join(parts[:end])
            if not module.startswith(package + "."):
                yield package


def imports(module: str) -> tuple[set[str], set[str]]:
    """(modules imported at module level, modules imported inside a function) by `module`."""
    path, is_package = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    type_checking = {id(sub) for node in ast.walk(tree)
                     if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                     for sub in ast.walk(node)}
    in_function = {id(sub) for node in ast.walk(tree)
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                   for sub in ast.walk(node)}
    guarded = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.Try)
               for statement in node.body for sub in ast.walk(statement)}  # (try: import x / except)
    top, local = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in type_checking:
            names = set(named_modules(module, is_package, node)) - {module}
            if id(node) in in_function:
                local |= set(named_modules(module, is_package, node, packages=False)) - {module}
            elif id(node) in guarded:  # used if installed: an edge, but not a need
                top |= {name for name in names if name.split(".")[0] in SOURCES}
            else:
                top |= names
    return top, local


@functools.cache
def graph() -> dict[str, tuple[set[str], set[str]]]:
    """`imports` of every module, read once, when a test first asks (not when the module is
    collected: every xdist worker collects it, one runs its tests)."""
    return {module: imports(module) for module in MODULES}


def cycles() -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    edges = {m: sorted(t for t in top if t in MODULES) for m, (top, _) in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def test_the_graph_is_read() -> None:
    # the reader itself: tensorplug's top level imports its tensor module, and a cycle is found
    assert "tensorplug.core.tensor" in graph()["tensorplug"][0]
    assert len(MODULES) > 200


def test_no_import_cycle() -> None:
    found = sorted(sorted(cycle) for cycle in cycles())
    assert found == [], (
        "these modules import each other in a circle (each list is one); a module imports another "
        "only if that one does not import it back, directly or through others: move what both "
        "need into a module below both, or the import into the module above")


def needing_optional_dependencies() -> set[str]:
    """The first-party modules whose import (at module level, through others) loads an optional dependency."""
    needing = {m for m, (top, _) in graph().items() if top & OPTIONAL_DEPENDENCIES}
    grew = True
    while grew:
        more = {m for m, (top, _) in graph().items() if top & needing} - needing
        needing |= more
        grew = bool(more)
    return needing


def test_imports_inside_functions_are_of_optional_dependencies() -> None:
    optional = OPTIONAL_DEPENDENCIES | needing_optional_dependencies()
    standing = {}
    for module, (_, local) in graph().items():
        not_optional = {name for name in local if name not in optional}
        if not_optional:
            standing[module] = not_optional
    assert standing == ALLOWED_LOCAL_IMPORTS, (
        "import these at the top of the module that needs them: an import inside a function is "
        "only for an optional dependency")
