"""The `tensorplug` command's info, kernels and doctor subcommands, run in-process through
`tensorplug.cli.main` (registries isolated by the conftest) and once through the console
script. Broken plugins and precedence between plugins: tests/test_plugin_reliability.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import TOY_SOURCE, install_toy_backend
from tensorplug.cli import main
from tensorplug.cli.kernels import MISSING, OWN
from tensorplug.extend import (
    BackendConfig,
    GradConfig,
    KernelConfig,
    KernelSpec,
    register_backend,
    register_gradient,
    register_kernel,
    register_kernel_spec,
    unregister_plugin,
)
from tensorplug.registry._slots import registering_as

NUMPY = "tensorplug-backend-numpy"
EXAMPLE = "tensorplug-example-ops"


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert captured.err == "" or code != 0, captured.err
    return code, captured.out + captured.err


def _row(out: str, first_cell: str) -> list[str]:
    """The cells of the table row starting with `first_cell` (cells are 2+ spaces apart)."""
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} in:\n{out}")


def _broken_factory():
    raise RuntimeError("no accelerator found")


# -- tensorplug info -------------------------------------------------------------------------
def test_info_shows_version_backends_and_plugins_with_their_contributions(capsys):
    assert tp.get_backend() == "numpy"  # numpy starts and becomes this thread's backend
    code, out = _run(capsys, "info")
    assert code == 0
    assert out.startswith(f"tensorplug {tp.__version__} (core API version {tp.API_VERSION}), Python ")
    assert _row(out, "backend") == ["backend", "priority", "started", "active", "registered by", "dtypes"]
    assert _row(out, "numpy") == ["numpy", "1", "yes", "yes", f"{NUMPY} 0.1.0", "all 15"]
    assert _row(out, "plugin") == ["plugin", "distribution", "version", "status", "contributed"]
    numpy_row = _row(out, NUMPY)
    assert numpy_row[1:4] == [NUMPY, "0.1.0", "active"]
    assert re.fullmatch(r"backends: numpy; kernels: \d+ on numpy", numpy_row[4])
    assert _row(out, EXAMPLE) == [EXAMPLE, EXAMPLE, "0.1.0", "active",
                                  "kernel specs: Erf; kernels: 1 on numpy; gradients: Erf, Round (override); "
                                  "JVP rules: Erf, Round (override); batching rules: Erf; "
                                  "ONNX lowerings: Erf; ops: clip_gradient, ema, erf, softplus"]
    assert re.search(r"tensorplug-core itself: kernel specs: \d+; gradients: \d+", out)
    assert out.rstrip().endswith(
        "No plugin problems (`tensorplug doctor` also lists the overrides in force).")


def test_info_starts_no_backend(capsys):
    register_backend(BackendConfig("idle", _broken_factory, priority=-3))
    code, out = _run(capsys, "info")
    assert code == 0
    assert _row(out, "idle") == ["idle", "-3", "no", "no", "user code", "undeclared"]
    assert "idle" not in tp.extend.backend_info()[0]["name"]
    assert [b["started"] for b in tp.extend.backend_info() if b["name"] == "idle"] == [False]


def test_info_says_when_there_are_problems(capsys, tmp_path, monkeypatch):
    from _toy_dist import forget, make_dist
    from tensorplug.testing import fresh_plugin_discovery

    toy = make_dist(tmp_path, "raise ImportError('missing dependency')\n", name="broken")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with fresh_plugin_discovery():
            code, out = _run(capsys, "info")
    finally:
        forget(toy)
    assert code == 0  # info informs; doctor's exit status says whether something is broken
    assert _row(out, toy.entry_name) == [toy.entry_name, toy.dist, "0.1.0", "failed", "-"]
    assert out.rstrip().endswith("1 plugin problem: run `tensorplug doctor` for causes and fixes.")


# -- tensorplug kernels ----------------------------------------------------------------------
def test_kernels_shows_who_provides_each_cell_and_each_gradient(capsys):
    code, out = _run(capsys, "kernels")
    assert code == 0
    # the highest priority backend first
    assert _row(out, "kernel")[:6] == ["kernel", "gradient", "JVP", "batching", "ONNX", "numpy"]
    assert _row(out, "Exp")[:3] + _row(out, "Exp")[4:6] == ["Exp", "core", "core", "core", OWN]
    erf = _row(out, "Erf")  # a kernel added to a backend it does not own
    assert erf[:2] + erf[4:7] == ["Erf", EXAMPLE, EXAMPLE, EXAMPLE, EXAMPLE]
    assert _row(out, "Round")[:2] + _row(out, "Round")[5:6] == ["Round", f"{EXAMPLE} (over core)", OWN]
    equal = _row(out, "Equal")
    assert equal[:3] + equal[4:6] == ["Equal", "n/a (not differentiable)", "n/a", "core", OWN]
    assert _row(out, "Svd")[4] == MISSING  # (no ONNX lowering)
    assert f"'{OWN}': registered by the backend's own plugin (numpy: {NUMPY} 0.1.0" in out
    specs, backends = len(tp.extend.list_kernel_specs()), len(tp.list_backends())
    assert f"Kernels: {specs} kernel specs x {backends} backend" in out


def test_kernels_marks_a_kernel_that_replaces_the_backends_own(capsys):
    tp.asarray(1.0)
    with registering_as("fast-matmul"):
        register_kernel(KernelConfig("MatMul", "numpy", lambda i, a, b: np.matmul(i[0], i[1])), override=True)
    code, out = _run(capsys, "kernels", "--backend", "numpy")
    assert code == 0
    matmul = _row(out, "MatMul")
    assert matmul[:2] + matmul[5:] == ["MatMul", "core", f"fast-matmul (over {NUMPY})"]
    code, out = _run(capsys, "doctor")
    assert code == 0
    assert f"[override] kernel MatMul on numpy: fast-matmul replaces {NUMPY}'s (override=True)" in out


def test_kernels_shows_where_jvp_and_batching_rules_come_from(capsys):
    tp.asarray(1.0)
    with registering_as("toy-jvp-plugin"):
        tp.extend.register_jvp(tp.extend.JvpConfig("Exp", lambda xs, ts, ys, a: ts[0] * ys[0]), override=True)
        tp.extend.register_batching_rule(
            tp.extend.BatchConfig("Exp", lambda xs, axes, a: (tp.exp(xs[0]), axes[0])), override=True)
    with registering_as("toy-spec-plugin"):  # differentiable, with a gradient and no JVP rule
        register_kernel_spec(KernelSpec(name="ToyTwice", inputs=("x",), infer=lambda i, a: [i[0]]))
        tp.extend.register_gradient(tp.extend.GradConfig("ToyTwice", lambda dy, s, a: {"x": lambda: 2 * dy}))
    code, out = _run(capsys, "kernels", "--backend", "numpy")
    exp = _row(out, "Exp")
    assert exp[2] == "toy-jvp-plugin (over core)"
    assert exp[3] in ("toy-jvp-plugin", "toy-jvp-plugin (over core)")  # (over core once core has one)
    assert _row(out, "ToyTwice")[1:4] == ["toy-spec-plugin", "from gradient", "loop"]
    assert _row(out, "Fill")[3] == "n/a"  # no tensor inputs: nothing to batch
    assert "JVP 'from gradient': forward mode transposes the gradient" in out


def test_kernels_for_one_backend_and_gaps(capsys):
    install_toy_backend(without=("Sin", "Erf"))
    with registering_as("toy-spec-plugin"):
        register_kernel_spec(KernelSpec(name="ToyNoGrad", inputs=("x",), infer=lambda i, a: [i[0]]))
    code, out = _run(capsys, "kernels", "--backend", "toy")
    assert code == 0
    assert _row(out, "kernel") == ["kernel", "gradient", "JVP", "batching", "ONNX", "toy"]
    assert _row(out, "Sin")[:3] + _row(out, "Sin")[5:] == ["Sin", "core", "core", MISSING]
    assert _row(out, "Exp")[:3] + _row(out, "Exp")[5:] == ["Exp", "core", "core", OWN]
    assert _row(out, "ToyNoGrad") == ["ToyNoGrad", "MISSING", "MISSING", "loop", MISSING, MISSING]
    assert f"(toy: {TOY_SOURCE})" in out

    code, out = _run(capsys, "kernels", "--missing")
    assert code == 1
    gaps = [line.strip() for line in out.splitlines() if line.startswith("  ")
            and re.search(r" on (toy|numpy):|^  gradient", line)]  # other installed backends aside
    assert gaps == ["kernel Erf on toy: no kernel registered",
                    "kernel Sin on toy: no kernel registered",
                    "kernel ToyNoGrad on numpy: no kernel registered",
                    "kernel ToyNoGrad on toy: no kernel registered",
                    "gradient of ToyNoGrad: none registered (its spec says it is differentiable)"]


def test_kernels_missing_without_gaps(capsys):
    code, out = _run(capsys, "kernels", "--missing", "--backend", "numpy")
    assert (code, out.strip()) == (0, "No gaps: every kernel spec has a kernel on numpy, and every "
                                      "differentiable one a gradient.")


def test_kernels_with_an_unknown_backend(capsys):
    code, out = _run(capsys, "kernels", "--backend", "nope")
    assert code == 2
    assert out.strip() == ("tensorplug kernels: no backend named 'nope'; registered backends: "
                           f"{', '.join(tp.list_backends())}.")


def test_a_backend_that_fails_to_start_is_shown_not_a_crash(capsys):
    register_backend(BackendConfig("broken", _broken_factory, priority=-5))
    code, out = _run(capsys, "kernels")
    assert code == 0
    assert _row(out, "kernel")[-1] == "broken"  # the lowest priority last
    assert [_row(out, "Exp")[5], _row(out, "Exp")[-1]] == [OWN, "?"]
    assert ("backend 'broken' failed to start ('?' above): TensorplugError: Backend 'broken' failed to "
            "start: RuntimeError: no accelerator found") in out
    code, out = _run(capsys, "doctor")
    assert code == 1
    assert "[backend failed to start] backend 'broken' (registered by user code)" in out
    assert ("cause: TensorplugError: Backend 'broken' failed to start: RuntimeError: no accelerator "
            "found") in out
    assert tp.exp(0.0).item() == 1.0  # numpy is unaffected


# -- tensorplug doctor -----------------------------------------------------------------------
def test_doctor_with_only_the_installed_plugins_lists_the_round_override_and_exits_zero(capsys):
    code, out = _run(capsys, "doctor")
    assert code == 0
    assert out.startswith("tensorplug doctor: 0 problems, 2 overrides in force\n")
    assert (f"  [override] gradient of Round: {EXAMPLE} replaces tensorplug-core's (override=True)\n"
            f"      cause: '{EXAMPLE} 0.1.0' registered it with override=True, so it is used instead of "
            "the registration of 'tensorplug-core'\n"
            "      fix:   Nothing to do if that is what you want. To get tensorplug-core's back, uninstall "
            f"{EXAMPLE} or call tensorplug.extend.unregister_plugin('{EXAMPLE}').") in out
    assert f"  [override] JVP rule of Round: {EXAMPLE} replaces tensorplug-core's (override=True)\n" in out
    assert "Problems\n" not in out
    assert out.rstrip().endswith("Nothing is broken.")


def test_doctor_after_unregistering_the_plugin_has_nothing_to_report(capsys):
    unregister_plugin(EXAMPLE)
    code, out = _run(capsys, "doctor")
    assert code == 0
    assert out.startswith("tensorplug doctor: 0 problems, 0 overrides in force\n")
    assert "Overrides in force" not in out


def test_doctor_lists_overrides_made_by_user_code(capsys):
    register_gradient(GradConfig("Exp", lambda dy, saved, attrs: {"x": lambda: dy}), override=True)
    code, out = _run(capsys, "doctor")
    assert code == 0
    assert "[override] gradient of Exp: user code replaces tensorplug-core's (override=True)" in out
    assert "To get tensorplug-core's back, unregister it (registered by user code)." in out


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("info", "kernels", "doctor", "demo"):
        assert re.search(rf"^\s+{command}\s+\S", out, re.MULTILINE), command


@pytest.mark.slow
def test_the_console_script_runs_doctor_and_info():
    script = Path(sys.executable).with_name("tensorplug")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    for command, code in (("doctor", 0), ("info", 0)):
        proc = subprocess.run([str(script), command], env=env, capture_output=True, text=True)
        assert (proc.returncode, proc.stderr) == (code, "")
        assert EXAMPLE in proc.stdout


def test_doctor_without_any_backend_says_how_to_get_one(capsys, monkeypatch):
    from tensorplug.testing import fresh_plugin_discovery

    monkeypatch.setenv("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD", "1")
    with fresh_plugin_discovery():
        code, out = _run(capsys, "doctor")
    assert code == 1
    assert ("  [no backend] tensorplug has no backend, so no op can run\n"
            "      cause: plugin autoload is disabled (TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD)\n"
            "      fix:   Unset TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD, or register a backend by hand.") in out
    assert "0 plugins active; 0 backends started." in out


@pytest.mark.slow
def test_a_reader_that_stops_early_ends_the_command_quietly():
    """`tensorplug kernels | head`: the pipe closes before the output is written; the command
    ends without a traceback (BrokenPipeError), as Unix tools do."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        proc = subprocess.run([sys.executable, "-m", "tensorplug.cli", "kernels"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 1
