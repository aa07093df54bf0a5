"""``import tensorplug`` stays light (issue 37): what only some programs use (``tp.nn`` with its
models and layers, ``tp.export``, ``tp.data``, ``tp.metrics``, ``tp.callbacks``; the CLI and the
testing kit are never imported by it) runs at the first read of one of its attributes
(``tensorplug.core.lazy_modules``), and reads, imports, ``dir()``, ``help()`` and type checkers
still see every name."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tensorplug as tp
from tensorplug.core.lazy_modules import lazy_module

LAZY_PACKAGES = ("tensorplug.models", "tensorplug.exporting.graph", "tensorplug.exporting.onnx_model",
                 "tensorplug.export", "tensorplug.data", "tensorplug.metrics", "tensorplug.callbacks",
                 "tensorplug.cli", "tensorplug.testing")


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_import_tensorplug_loads_none_of_the_lazy_parts():
    loaded = _run(f"""
        import sys, types
        import tensorplug as tp
        tp.add(1, 2), tp.Tensor, tp.nn, tp.export  # (the eager parts; reading tp.nn runs nothing)
        print(sorted(m for m in sys.modules for lazy in {LAZY_PACKAGES!r}
                     if (m == lazy or m.startswith(lazy + ".")) and type(sys.modules[m]) is types.ModuleType))
    """)
    assert loaded.strip() == "[]"


#: standard modules only some calls need (tp.save and tp.load, Profile.export_chrome_trace; einsum)
LAZY_STDLIB = ("pathlib", "tempfile", "string")


def test_import_tensorplug_runs_none_of_the_standard_modules_few_calls_need():
    loaded = _run(f"""
        import sys, types
        import tensorplug  # (not tp.add: the first scan of the plugins' entry points loads them)
        print([m for m in {LAZY_STDLIB!r} if type(sys.modules.get(m)) is types.ModuleType])
    """)
    assert loaded.strip() == "[]"


def test_a_lazy_standard_module_runs_at_its_first_use(tmp_path):
    out = _run(f"""
        import sys, types
        import tensorplug as tp
        path = {str(tmp_path / "x")!r}
        tp.save(path, {{"w": tp.ones((2,))}})
        print([type(sys.modules[m]) is types.ModuleType for m in {LAZY_STDLIB[:2]!r}], tp.load(path))
        print(tp.einsum("i,i->", tp.ones(2), tp.ones(2)), type(sys.modules["string"]) is types.ModuleType)
    """)
    assert out.split("\n")[:2] == ["[True, True] {'w': Tensor([1., 1.], dtype=float32, backend='numpy')}",
                                    "2.0 True"]


def test_ml_dtypes_is_imported_at_the_first_read_of_bfloat16s_numpy_dtype():
    """``tp.bfloat16`` is in place at import, its numpy dtype (ml_dtypes') read at first use;
    an ml_dtypes array met before that is tp.bfloat16 all the same."""
    out = _run("""
        import sys
        import tensorplug as tp
        print("ml_dtypes" in sys.modules, tp.bfloat16 in tp.dtypes.FLOAT_DTYPES, tp.bfloat16.itemsize)
        import numpy as np, ml_dtypes
        from tensorplug.dtypes import from_numpy_dtype, is_floating_numpy
        bf16 = np.dtype(ml_dtypes.bfloat16)
        print(is_floating_numpy(bf16), from_numpy_dtype(bf16) is tp.bfloat16, tp.bfloat16.numpy == bf16)
    """)
    assert out.split("\n")[:2] == ["False True 2", "True True True"]


def test_import_tensorplug_loads_no_rule_module():
    """The family folders' gradients, JVP and batching rules and ONNX lowerings are imported at
    the first read of a runtime's rule tables (``families/registration.py``)."""
    loaded = _run("""
        import sys
        import tensorplug as tp  # (not tp.add: a plugin registering a rule loads them, as the example's)
        print(sorted(m for m in sys.modules if m.startswith("tensorplug.families.")
                     and m.rsplit(".", 1)[1] in ("gradients", "jvps", "batching", "onnx_lowerings")))
        print(tp.grad(lambda x: tp.sum(tp.exp(x)))(tp.zeros(2)),
              "tensorplug.families.elementwise.gradients" in sys.modules)
    """)
    assert loaded.split("\n")[:2] == ["[]", "[1. 1.] True"]


@pytest.mark.parametrize("override", [False, True])
def test_a_rule_registered_before_the_cores_load_is_held_to_them(override):
    """A user's rule meets the core's as if they had been loaded at import: a second one for a
    kernel is refused without override=True, and sits above the core's with it."""
    out = _run(f"""
        import sys
        import tensorplug as tp
        from tensorplug.core.runtime import current
        from tensorplug.extend import GradConfig, register_gradient
        mine = GradConfig("Exp", lambda dy, saved, attrs: {{"x": lambda: dy}})
        try:
            register_gradient(mine, override={override})
        except tp.RegistrationError as exc:
            print(type(exc).__name__, "already registered by 'tensorplug-core'" in str(exc))
        table = current().gradients
        print(table.active["Exp"] is mine, [r.source for r in table.stacks["Exp"]])
    """)
    expected = (["True ['tensorplug-core', 'user code']"] if override else
                ["RegistrationConflictError True", "False ['tensorplug-core']"])
    assert out.split("\n")[:len(expected)] == expected


def test_threads_reading_the_rule_tables_first_all_see_them_whole():
    """The tables are put in place once filled: no thread sees them half filled."""
    out = _run("""
        import threading
        import tensorplug as tp
        from tensorplug.core.runtime import current
        start, sizes = threading.Barrier(8), []
        def read():
            start.wait()
            sizes.append(tuple(len(t.active) for t in (current().gradients, current().jvps,
                                                        current().batching, current().onnx_lowerings)))
        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len(set(sizes)), min(sizes) > (100, 100, 100, 100))
    """)
    assert out.strip() == "1 True"


def test_a_lazy_name_is_loaded_when_first_read_and_then_kept():
    out = _run("""
        import sys
        import tensorplug as tp
        print("tensorplug.models.layers.dense" in sys.modules)
        from tensorplug.nn import Dense
        from tensorplug.models.layers.dense import Dense as Defined
        print(Dense is Defined is tp.nn.Dense, "Dense" in vars(tp.nn))
        print(tp.export.__name__, tp.optimizers.Adam.__name__, tp.data.Dataset.__module__)
    """)
    assert out.split("\n")[:3] == ["False", "True True", "tensorplug.export Adam tensorplug.data"]


def test_every_public_name_reads_and_is_listed():
    for module in (tp, tp.nn, tp.export, tp.data, tp.metrics, tp.callbacks, tp.optimizers):
        for name in module.__all__:
            getattr(module, name)
        assert set(module.__all__) <= set(dir(module))


def test_the_package_has_no_module_getattr():
    """A module ``__getattr__`` (PEP 562) would stop CPython from specializing the reads of
    ``tp.add`` and every other name (CONTRIBUTING.md, "Import time")."""
    out = _run("""
        import types
        import tensorplug as tp
        print(type(tp.nn) is types.ModuleType, tp.nn.relu.__name__)  # (run at its first read)
        print("__getattr__" in vars(tp), type(tp.nn) is types.ModuleType, "__getattr__" in vars(tp.nn))
    """)
    assert out.split("\n")[:2] == ["False relu", "False True False"]


def test_type_checkers_see_the_lazy_modules():
    """The modules made lazy are the ones imported under TYPE_CHECKING, for type checkers."""
    tree = ast.parse(Path(tp.__file__).read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            names |= {alias.name for sub in node.body if isinstance(sub, ast.ImportFrom)
                      for alias in sub.names}
            lazy = {target.id for sub in node.orelse if isinstance(sub, ast.Assign) for target in sub.targets
                    if isinstance(target, ast.Name)}
    assert names == lazy == {"callbacks", "data", "export", "metrics", "nn"}


def test_a_package_is_refused(tmp_path, monkeypatch):
    """A package's modules imported before it is run would be run twice (two of each class)."""
    (tmp_path / "lazy_probe_package").mkdir()
    (tmp_path / "lazy_probe_package" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match=r"lazy_module\('lazy_probe_package'\): .* is a package"):
        lazy_module("lazy_probe_package")
    assert lazy_module("tensorplug.nn") is tp.nn  # (imported already: the module itself)


def test_help_shows_a_lazy_namespace_whole():
    out = _run("""
        import pydoc
        import tensorplug as tp
        text = pydoc.render_doc(tp.nn, renderer=pydoc.plaintext)
        print("class Dense" in text, "relu(" in text, "tp.nn" in text)
    """)
    assert out.strip() == "True True True"


def test_threads_reading_a_lazy_module_at_once_all_see_it_whole():
    """One thread runs it; the others wait for it (not so with importlib.util.LazyLoader before
    Python 3.13, whose module a second thread could read half run)."""
    out = _run("""
        import threading
        import tensorplug as tp
        start, failed = threading.Barrier(8), []
        def read():
            start.wait()
            try:
                tp.nn.Dense, tp.nn.Module, tp.nn.set_seed
            except AttributeError as exc:
                failed.append(str(exc))
        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(failed)
    """)
    assert out.strip() == "[]"
