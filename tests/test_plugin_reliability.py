"""Broken plugins, built as real distributions in a temporary directory: each one is isolated,
named by `tensorplug doctor` with its cause and fix (exit status 1), and every other plugin
keeps working; strict mode turns them into errors. Then precedence between plugins: two
plugins claiming one gradient or kernel is an error naming both unless one declares a
priority. (tests/test_plugins.py covers loading itself: laziness, rollback, warnings.)"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

import tensorplug as tp
from _toy_dist import ToyDist, forget, make_dist
from tensorplug.cli import main
from tensorplug.core.runtime import current
from tensorplug.errors import RegistrationConflictError, TensorplugPluginWarning
from tensorplug.extend import (
    GradConfig,
    contributions,
    list_plugins,
    plugin_problems,
    register_gradient,
    unregister_plugin,
)
from tensorplug.registry._slots import CORE_SOURCE, registering_as
from tensorplug.testing.isolation import fresh_plugin_discovery

EXAMPLE = "tensorplug-example-ops"
STRICT = "TENSORPLUG_STRICT_PLUGINS"

IMPORT_FAILS = "raise RuntimeError('boom while importing')\n"

HOOK_RAISES = """
@hookimpl
def tensorplug_gradients(register):
    raise ZeroDivisionError("the gradient table divided by zero")
"""

UNKNOWN_KERNEL = """
import numpy as np

@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("Erff", "numpy", lambda inputs, attrs, backend: inputs[0]))
"""

WRONG_TYPES = """
@hookimpl
def tensorplug_ops(register):
    return {"toy_double": lambda x: x * 2.0}  # a dict of functions, not OpConfigs
"""

GOOD = """
import numpy as np
import tensorplug as tp

@hookimpl
def tensorplug_kernel_specs(register):
    register(KernelSpec(name="ToyTriple", inputs=("x",), infer=lambda infos, attrs: [infos[0]]))

@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("ToyTriple", "numpy", lambda inputs, attrs, backend: inputs[0] * 3))

@hookimpl
def tensorplug_ops(register):
    register(OpConfig("toy_triple", lambda x: tp.run_kernel("ToyTriple", {"x": x})))
"""

# (source, name, the doctor's word for it, a piece of the cause)
BROKEN = [
    (IMPORT_FAILS, "import", "import failure", "RuntimeError: boom while importing"),
    (HOOK_RAISES, "hook", "hook raised", "ZeroDivisionError: the gradient table divided by zero"),
    (UNKNOWN_KERNEL, "unknown", "unknown kernel name",
     "KernelSpecNotFoundError: No kernel spec named 'Erff'. Did you mean 'Erf'"),
    (WRONG_TYPES, "types", "bad registration",
     "RegistrationError: tensorplug_ops passed a str to register(); it takes a OpConfig"),
]
STAGES = {"import": "import", "hook": "hook tensorplug_gradients",
          "unknown": "hook tensorplug_kernels (backend 'numpy')", "types": "hook tensorplug_ops"}


@pytest.fixture
def toys(tmp_path, monkeypatch):
    """make(source, name) writes a toy distribution on sys.path; the test runs with plugin
    discovery reset (the installed plugins and the toys are found on first use)."""
    made: list[ToyDist] = []
    for var in (STRICT, "TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD", "TENSORPLUG_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(source: str, name: str) -> ToyDist:
        toy = make_dist(tmp_path, source, name=name)
        made.append(toy)
        return toy

    with fresh_plugin_discovery():
        yield make
    forget(*made)


def _doctor(capsys) -> tuple[int, str]:
    code = main(["doctor"])
    return code, capsys.readouterr().out


def _others_still_work() -> None:
    assert tp.ops.toy_triple(2.0).item() == 6.0
    assert tp.ops.erf(0.0).item() == 0.0
    assert (tp.asarray([1.0, 2.0]) * 2.0).tolist() == [2.0, 4.0]


def _subprocess(args: list[str], pythonpath: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra)
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)


# -- each broken plugin alone ----------------------------------------------------------------
@pytest.mark.parametrize(("source", "name", "kind", "cause"), BROKEN, ids=[b[1] for b in BROKEN])
def test_a_broken_plugin_is_named_by_doctor_and_the_others_keep_working(toys, capsys, source, name,
                                                                          kind, cause):
    broken = toys(source, f"broken-{name}")
    good = toys(GOOD, "good")
    code, out = _doctor(capsys)
    assert code == 1
    assert "tensorplug doctor: 1 problem, 2 overrides in force" in out
    assert (f"  [{kind}] plugin '{broken.entry_name} ({broken.dist} 0.1.0)' at {STAGES[name]}\n"
            f"      cause: {cause}") in out
    assert "      fix:   " in out.split(f"[{kind}]")[1]
    assert "Something is broken: see the fixes above." in out
    assert good.entry_name not in out  # nothing to say about it
    _others_still_work()
    [problem] = plugin_problems()
    assert problem.plugin == broken.entry_name
    info = {p.name: p for p in list_plugins()}
    assert info[good.entry_name].active
    # what the broken plugin registered was rolled back (a failed kernels hook only for that
    # backend: the plugin stays active for the others)
    assert info[broken.entry_name].active is (name == "unknown")
    assert all(v == [] for v in contributions(broken.entry_name).values())


def test_all_four_at_once_in_a_subprocess(tmp_path):
    """The console command in a fresh process, the toys found through PYTHONPATH: one entry
    per broken plugin, no traceback, exit status 1; a program using tensorplug works and gets
    one warning per broken plugin."""
    dists = [make_dist(tmp_path, source, name=f"broken-{name}") for source, name, _, _ in BROKEN]
    make_dist(tmp_path, GOOD, name="good")
    proc = _subprocess(["-m", "tensorplug.cli", "doctor"], str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    assert "tensorplug doctor: 4 problems, 2 overrides in force" in proc.stdout
    for dist, (_, name, kind, cause) in zip(dists, BROKEN):
        assert f"[{kind}] plugin '{dist.entry_name} ({dist.dist} 0.1.0)' at {STAGES[name]}" in proc.stdout
        assert cause in proc.stdout

    proc = _subprocess(["-c", "import tensorplug as tp; print(tp.ops.toy_triple(2.0).item(), "
                              "tp.ops.erf(0.0).item())"], str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["6.0", "0.0"]
    for dist in dists:
        assert proc.stderr.count(f"plugin '{dist.entry_name}' (distribution {dist.dist}) failed at") == 1


# -- strict mode -----------------------------------------------------------------------------
def test_strict_mode_turns_each_problem_into_an_error(tmp_path):
    dists = [make_dist(tmp_path, source, name=f"broken-{name}") for source, name, _, _ in BROKEN]
    proc = _subprocess(["-c", "import tensorplug as tp; tp.asarray(1.0)"], str(tmp_path), **{STRICT: "1"})
    assert proc.returncode == 1
    assert "tensorplug.errors.PluginError: 3 tensorplug plugins failed to load:" in proc.stderr
    for dist in dists[:2] + dists[3:]:  # found while loading
        assert f"- tensorplug plugin '{dist.entry_name}' (distribution {dist.dist}) failed at" in proc.stderr

    # every use raises the same error, until the environment is fixed
    code = ("import tensorplug as tp\n"
            "from tensorplug.errors import PluginError\n"
            "for attempt in range(3):\n"
            "    try:\n"
            "        tp.asarray(1.0)\n"
            "    except PluginError as exc:\n"
            "        print(attempt, exc.plugin, str(exc).splitlines()[0])\n")
    proc = _subprocess(["-c", code], str(tmp_path), **{STRICT: "1"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and len(set(line[2:] for line in lines)) == 1, lines
    assert lines[0].startswith(f"0 {dists[0].entry_name} 3 tensorplug plugins failed to load")


KERNELS_HOOK_RAISES = """
@hookimpl
def tensorplug_kernels(backend_name, register):
    raise ZeroDivisionError("no kernels today")
"""

FACTORY_RAISES = """
@hookimpl
def tensorplug_backends(register):
    def start():
        raise OSError("the device is gone")
    register(BackendConfig("toyfail", start, priority=5))
"""


@pytest.mark.parametrize(("source", "stage"), [(KERNELS_HOOK_RAISES, "hook tensorplug_kernels"),
                                               (FACTORY_RAISES, "starting backend 'toyfail'")],
                         ids=["kernels-hook", "backend-factory"])
def test_strict_mode_raises_the_same_error_at_every_use(toys, monkeypatch, source, stage):
    """Issue 17: in strict mode a failing kernels hook or backend factory is a PluginError
    naming the plugin at the first use and at every use after it (no second start of the
    backend, no false conflicts of the backend's own kernels with themselves)."""
    monkeypatch.setenv(STRICT, "1")
    broken = toys(source, "strict-broken")
    errors = []
    for _ in range(3):
        with pytest.raises(tp.PluginError) as caught:
            tp.add(1.0, 2.0)
        errors.append(caught.value)
    assert errors[0] is errors[1] is errors[2]
    assert errors[0].plugin == broken.entry_name and stage in str(errors[0])
    assert "registers a different one" not in str(errors[0])


def test_doctor_in_strict_mode_reports_instead_of_raising(toys, capsys, monkeypatch):
    monkeypatch.setenv(STRICT, "1")
    broken = toys(HOOK_RAISES, "broken-hook")
    code, out = _doctor(capsys)
    assert code == 1
    assert f"environment: {STRICT}=1" in out
    assert "strict mode (TENSORPLUG_STRICT_PLUGINS) turns plugin problems into errors" in out
    assert f"[hook raised] plugin '{broken.entry_name} ({broken.dist} 0.1.0)'" in out


# -- precedence between plugins --------------------------------------------------------------
def _exp_gradient_override(factor: float, extra: str = "") -> str:
    return f"""
@hookimpl
def tensorplug_gradients(register):
    register(GradConfig("Exp", lambda dy, saved, attrs: {{"x": lambda: dy * {factor}}}),
             override=True{extra})
"""


def test_two_plugins_overriding_one_gradient_is_an_error_naming_both(toys, capsys):
    first = toys(_exp_gradient_override(2.0), "grad-a")
    second = toys(_exp_gradient_override(3.0), "grad-b")
    with pytest.warns(TensorplugPluginWarning) as record:
        assert tp.grad(tp.exp)(0.0).item() == 2.0  # the first (by plugin name) is kept
    [message] = [str(w.message) for w in record]
    assert (f"Gradient of kernel 'Exp' is already overridden by '{first.entry_name}'; "
            f"'{second.entry_name}' overrides it too, at the same priority (0)") in message
    assert "register(..., override=True, priority=1)" in message
    code, out = _doctor(capsys)
    assert code == 1
    assert (f"[conflict] plugin '{second.entry_name} ({second.dist} 0.1.0)' at hook "
            "tensorplug_gradients") in out
    assert "fix:   Its registration clashes with the one named above: uninstall one of the two" in out
    assert ".. " not in out  # one full stop after the cause
    assert f"[override] gradient of Exp: {first.entry_name} replaces tensorplug-core's (override=True)" in out


def test_a_declared_priority_settles_two_gradient_overrides(toys, capsys):
    low = toys(_exp_gradient_override(2.0), "grad-a")
    high = toys(_exp_gradient_override(3.0, ", priority=1"), "grad-b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TensorplugPluginWarning)
        assert tp.grad(tp.exp)(0.0).item() == 3.0
    assert [(r.source, r.priority) for r in current().gradients.stacks["Exp"]] == [
        (CORE_SOURCE, 0), (low.entry_name, 0), (high.entry_name, 1)]
    code, out = _doctor(capsys)
    assert code == 0
    assert (f"[override] gradient of Exp: {high.entry_name} replaces tensorplug-core's, "
            f"{low.entry_name}'s (priority 1 > 0)") in out
    unregister_plugin(high.entry_name)
    assert tp.grad(tp.exp)(0.0).item() == 2.0
    unregister_plugin(low.entry_name)
    assert tp.grad(tp.exp)(0.0).item() == 1.0


FAST_MATMUL = """
import numpy as np

def _matmul(inputs, attrs, backend):
    return np.matmul(inputs[0], inputs[1]) + {offset}  # "faster": recognisable by its offset

@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("MatMul", "numpy", _matmul), override=True{extra})
"""


def test_two_plugins_overriding_one_kernel_is_an_error_unless_one_declares_a_priority(toys):
    first = toys(FAST_MATMUL.format(offset=100, extra=""), "fast-a")
    second = toys(FAST_MATMUL.format(offset=200, extra=""), "fast-b")
    with pytest.warns(TensorplugPluginWarning, match=(
            rf"Kernel 'MatMul' for backend 'numpy' is already overridden by '{first.entry_name}'; "
            rf"'{second.entry_name}' overrides it too")):
        assert (tp.ones((1, 1)) @ tp.ones((1, 1))).item() == 101.0
    assert current().kernels.registration(("MatMul", "numpy")).source == first.entry_name


def test_a_faster_kernel_for_a_backend_the_plugin_does_not_own_is_visible(toys, capsys):
    fast = toys(FAST_MATMUL.format(offset=0, extra=""), "fast")
    assert main(["kernels", "--backend", "numpy"]) == 0
    row = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("  MatMul ")]
    # (gradient, JVP, batching and ONNX lowering from the core; the kernel the plugin's)
    assert row == [["MatMul", "core", "core", "core", "core", fast.entry_name, "(over",
                    "tensorplug-backend-numpy)"]]
    code, out = _doctor(capsys)
    assert code == 0
    assert (f"[override] kernel MatMul on numpy: {fast.entry_name} replaces tensorplug-backend-numpy's "
            "(override=True)") in out
    assert (f"uninstall {fast.dist} or call tensorplug.extend.unregister_plugin('{fast.entry_name}')"
            in out)
    unregister_plugin(fast.entry_name)
    assert current().kernels.registration(("MatMul", "numpy")).source == "tensorplug-backend-numpy"


def test_a_kernel_override_with_a_priority_wins_over_another(toys):
    toys(FAST_MATMUL.format(offset=100, extra=""), "fast-a")
    second = toys(FAST_MATMUL.format(offset=200, extra=", priority=1"), "fast-b")
    assert (tp.ones((1, 1)) @ tp.ones((1, 1))).item() == 201.0
    assert [r.source for r in current().kernels.stacks[("MatMul", "numpy")]][-1] == second.entry_name
    unregister_plugin(second.entry_name)
    assert (tp.ones((1, 1)) @ tp.ones((1, 1))).item() == 101.0


def test_user_code_overriding_a_plugin_override_is_refused_with_the_ways_out():
    ste = current().gradients.registration("Round")
    assert ste.source == EXAMPLE and ste.override
    mine = GradConfig("Round", lambda dy, saved, attrs: {"x": lambda: dy * 0.5})
    with pytest.raises(RegistrationConflictError, match=(
            rf"Gradient of kernel 'Round' is already overridden by '{EXAMPLE}'; 'user code' overrides "
            r"it too, at the same priority \(0\)\. Give one of them a higher priority")):
        register_gradient(mine, override=True)
    register_gradient(mine, override=True, priority=1)
    assert tp.grad(lambda x: tp.round(x) * 1.0)(0.2).item() == 0.5


def test_a_source_overriding_again_replaces_its_own_override():
    with registering_as("notebook"):
        for factor in (4.0, 5.0, 6.0):
            register_gradient(GradConfig("Exp", lambda dy, saved, attrs, f=factor: {"x": lambda: dy * f}),
                              override=True)
    assert [r.source for r in current().gradients.stacks["Exp"]] == [CORE_SOURCE, "notebook"]
    assert tp.grad(tp.exp)(0.0).item() == 6.0


# -- a third party's kernel cannot hijack a backend's own (issue 17) ---------------------------
HIJACK_ADD = """
@hookimpl
def tensorplug_kernels(backend_name, register):
    if backend_name == "numpy":
        register(KernelConfig("Add", "numpy", lambda inputs, attrs, backend: inputs[0] - inputs[1]){how})
"""


@pytest.mark.parametrize("how", ["", ", priority=5"], ids=["plain", "higher-priority"])
def test_a_conflicting_kernel_is_refused_whatever_the_plugin_is_called(toys, capsys, how):
    """A plugin named to load before the backend's own, registering a different Add for numpy
    without override=True (with or without a higher priority), is the one refused: the warning
    and doctor name it, numpy's Add and every other numpy kernel keep working."""
    conflict = toys(HIJACK_ADD.format(how=how), "aaa-conflict")
    with pytest.warns(TensorplugPluginWarning, match=rf"plugin '{conflict.entry_name}'.*override=True"):
        assert tp.add(tp.asarray([1, 2]), tp.asarray([10, 20])).tolist() == [11, 22]
    assert tp.sum(tp.asarray([1.0, 2.0])).item() == 3.0
    assert tp.grad(lambda x: tp.sum(x * x))(tp.asarray([3.0])).tolist() == [6.0]
    assert current().kernels.registration(("Add", "numpy")).source == "tensorplug-backend-numpy"
    [problem] = plugin_problems()
    assert problem.plugin == conflict.entry_name and problem.error_type is RegistrationConflictError
    code, out = _doctor(capsys)
    assert code == 1 and f"plugin '{conflict.entry_name} ({conflict.dist} 0.1.0)'" in out
    assert "plugin 'tensorplug-backend-numpy" not in out  # the backend is not blamed


def test_a_plugin_that_exits_while_importing_is_isolated(toys, capsys):
    exits = toys("import sys\nsys.exit(3)\n", "exits")
    with pytest.warns(TensorplugPluginWarning, match=rf"plugin '{exits.entry_name}'.*SystemExit: 3"):
        assert tp.add(1.0, 2.0).item() == 3.0
    assert tp.exp(tp.asarray(0.0)).item() == 1.0  # and every op after it
    code, out = _doctor(capsys)
    assert code == 1 and exits.entry_name in out and "SystemExit: 3" in out
