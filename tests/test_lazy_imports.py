"""``import tensorplug`` stays light (issue 37): what only some programs use (``tp.nn``'s models
and layers, ``tp.export``, ``tp.data``, ``tp.metrics``, ``tp.callbacks``, ``tp.optimizers``,
``tp.save``/``tp.load``, the CLI, the testing kit) is loaded when first read
(``tensorplug.core.lazy_attributes``), and reads, imports, ``dir()`` and type checkers still
see every name."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tensorplug as tp

LAZY_PACKAGES = ("tensorplug.models", "tensorplug.optimizers", "tensorplug.exporting.graph",
                 "tensorplug.exporting.onnx_model", "tensorplug.io.saving", "tensorplug.data",
                 "tensorplug.export", "tensorplug.metrics", "tensorplug.callbacks", "tensorplug.cli",
                 "tensorplug.testing")


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_import_tensorplug_loads_none_of_the_lazy_parts():
    loaded = _run(f"""
        import sys
        import tensorplug as tp
        tp.add(1, 2), tp.nn.relu, tp.Tensor  # (the eager parts)
        print(sorted(m for m in sys.modules for lazy in {LAZY_PACKAGES!r}
                     if m == lazy or m.startswith(lazy + ".")))
    """)
    assert loaded.strip() == "[]"


def test_a_lazy_name_is_loaded_when_first_read_and_then_kept():
    out = _run("""
        import sys
        import tensorplug as tp
        print("tensorplug.models.layers.dense" in sys.modules)
        from tensorplug.nn import Dense
        from tensorplug.models.layers.dense import Dense as Defined
        print(Dense is Defined is tp.nn.Dense, "Dense" in vars(tp.nn))
        print(tp.export.__name__, tp.save.__module__, tp.optimizers.Adam.__name__)
    """)
    assert out.split("\n")[:3] == ["False", "True True", "tensorplug.export tensorplug.io.saving Adam"]


@pytest.mark.parametrize("module", [tp, tp.nn], ids=["tensorplug", "tensorplug.nn"])
def test_every_public_name_reads_and_is_listed(module):
    for name in module.__all__:
        getattr(module, name)
    assert set(module.__all__) <= set(dir(module))


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'tensorplug.nn' has no attribute 'Denes'"):
        tp.nn.Denes  # noqa: B018
    assert not hasattr(tp, "no_such_name")


def _type_checking_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            names |= {alias.asname or alias.name for sub in node.body if isinstance(sub, ast.ImportFrom)
                      for alias in sub.names}
    return names


@pytest.mark.parametrize("module", [tp, tp.nn], ids=["tensorplug", "tensorplug.nn"])
def test_type_checkers_see_the_names_loaded_lazily(module):
    """Every name the lazy loader gives is imported under TYPE_CHECKING, and nothing else is."""
    found = _type_checking_names(ast.parse(Path(module.__file__).read_text()))
    fresh = _run(f"""
        import {module.__name__} as m
        print(sorted(set(dir(m)) - set(vars(m))))
    """)
    assert set(ast.literal_eval(fresh.strip())) == found
