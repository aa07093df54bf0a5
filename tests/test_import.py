"""Importing tensorplug: no plugin and no backend library is imported, and the README's
one-liner works in a fresh interpreter (the numpy backend found through its entry point)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _python(code: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True)


def test_import_tensorplug_imports_no_plugin_and_no_backend_library():
    proc = _python("""
        import sys
        import tensorplug as tp
        import tensorplug.extend, tensorplug.testing
        tp.float32, tp.Tensor, tp.extend.KernelConfig  # touching the namespace loads nothing
        bad = sorted(m for m in sys.modules
                     if m.split(".")[0] in ("tensorplug_numpy", "tensorplug_jax", "jax", "jaxlib", "torch"))
        print(bad)
        from tensorplug.core.runtime import current
        print(current().plugins.loaded)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["[]", "False"]


def test_import_registers_the_cores_entries_and_nothing_else():
    """The default runtime is register_core(Runtime()): the core's declared entries, as the
    core's, and no backend, kernel or op (plugins load on first use)."""
    proc = _python("""
        import tensorplug
        from tensorplug.registry._slots import CORE_SOURCE
        from tensorplug.registry.core_entries import CORE_ENTRIES
        from tensorplug.core.runtime import current
        runtime = current()
        print(all(getattr(runtime, a).active == entries for a, entries in CORE_ENTRIES.items()))
        print({r.source for t in runtime.tables().values() for _, s in t.registrations() for r in s}
              == {CORE_SOURCE})
        print([what for what, t in runtime.tables().items() if not t.active])
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:3] == ["True", "True", "['backend', 'kernel', 'op']"]


def test_the_readme_one_liner_works_in_a_fresh_interpreter():
    proc = _python(
        "import tensorplug as tp; x = tp.asarray([1.0, 2.0]); "
        "print(tp.grad(lambda x: tp.sum(tp.tanh(x) ** 2))(x))"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[0.6397     0.13621867]"
    assert proc.stderr == ""


def test_the_numpy_backend_is_found_through_its_entry_point():
    proc = _python("""
        import sys
        import tensorplug as tp
        info = {p.name: p for p in tp.extend.list_plugins()}["tensorplug-backend-numpy"]
        print(tp.get_backend(), info.distribution, info.origin, info.active, tp.extend.plugin_problems())
        print("tensorplug_numpy.plugin" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["numpy tensorplug-backend-numpy entry point True []", "True"]
