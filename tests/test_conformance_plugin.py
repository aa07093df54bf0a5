"""The pytest plugin of the conformance kit: inactive unless asked, clear usage errors, and the
selection rules (command line, pyproject.toml, a conformance file) and the coverage summary it
builds from test outcomes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from _conformance_run import run_kit
from tensorplug.testing.coverage import Coverage, Plan, Record, parse_property
from tensorplug.testing.selection import SelectionError, load_selection, split_patterns


def pytest_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True)


# -- the plugin in a pytest run --------------------------------------------------------------
@pytest.mark.slow
def test_inactive_unless_asked(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    run = pytest_run("-q", cwd=tmp_path)
    assert run.returncode == 0 and "1 passed" in run.stdout
    assert "tensorplug conformance" not in run.stdout
    helped = pytest_run("--help", cwd=tmp_path)
    for option in ("--tensorplug-backend=NAME", "--tensorplug-include=PATTERNS",
                   "--tensorplug-exclude=PATTERNS", "--tensorplug-onnx",
                   "--tensorplug-conformance-file=PATH", "--tensorplug-gradient-order=N"):
        assert option in helped.stdout


@pytest.mark.slow
def test_asked_without_the_suite(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    run = pytest_run("-q", "--tensorplug-backend", "numpy", cwd=tmp_path)
    assert run.returncode == 0 and "1 passed" in run.stdout
    assert "no conformance test ran; the suite runs with: pytest --pyargs tensorplug.testing.conformance " \
           "--tensorplug-backend numpy" in run.stdout


@pytest.mark.slow
def test_the_suite_needs_a_backend(tmp_path):
    run = pytest_run("--pyargs", "tensorplug.testing.conformance", "-q", cwd=tmp_path)
    assert run.returncode != 0
    assert re.search(r"the tensorplug conformance suite checks one backend: pass --tensorplug-backend NAME "
                     r"\(installed backends: \[[^]]*'numpy'", run.stdout), run.stdout[-2000:]


@pytest.mark.slow
def test_an_unknown_backend_is_a_usage_error(tmp_path):
    run = run_kit("nope", cwd=tmp_path)
    assert run.returncode == 4
    assert re.search(r"--tensorplug-backend nope: no backend of that name is installed; installed backends: "
                     r"\[[^]]*'numpy'", run.stderr), run.stderr


@pytest.mark.slow
def test_a_bad_settings_table_is_a_usage_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tensorplug.conformance]\nexlcude = ["Exp"]\n')
    run = run_kit("numpy", cwd=tmp_path)
    assert run.returncode == 4
    assert "pyproject.toml: unknown key(s) ['exlcude'] in the conformance settings; the keys are 'include' " \
           "and 'exclude'" in run.stderr


@pytest.mark.slow
def test_header_filters_and_gradient_order(tmp_path):
    run = run_kit("numpy", "--tensorplug-include", "Sin,Cos", "--tensorplug-exclude", "Cos",
                  "--tensorplug-gradient-order", "1", "-vv", cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "tensorplug conformance: backend 'numpy' (registered by 'tensorplug-backend-numpy')" in run.stdout
    assert "include: ['Sin', 'Cos']; exclude: ['Cos']" in run.stdout
    assert "test_conformance.py::test_kernel[Sin] PASSED" in run.stdout
    assert "test_conformance.py::test_gradient[Sin] PASSED" in run.stdout
    assert "test_kernel[Cos]" not in run.stdout.split("= tensorplug conformance =")[0]
    assert "excluded (1, --tensorplug-exclude): Cos" in run.summary


# -- selection ------------------------------------------------------------------------------
def test_patterns_from_options():
    assert split_patterns(["Exp,Log*", " Sum ", ""]) == ["Exp", "Log*", "Sum"]


def test_selection_from_the_command_line():
    sel = load_selection(["Log*,Exp"], ["Log1p"])
    assert [n for n in ("Exp", "Expm1", "Log", "Log1p", "Sum") if sel.selects(n)] == ["Exp", "Log"]
    assert sel.excluded_by("Log1p") == "--tensorplug-exclude" and not sel.included("Sum")
    assert sel.unused(["Exp", "Log"]) == ["Log1p"]


def test_selection_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.tensorplug.conformance]\ninclude = ["A*", "B"]\n'
        '[tool.tensorplug.conformance.exclude]\nAb = "not yet"\nAc = ""\n')
    sel = load_selection(rootdir=tmp_path)
    assert sel.include == ("A*", "B") and sel.describe_include() == "pyproject.toml: A*, B"
    assert sel.excluded_by("Ab") == "pyproject.toml: not yet"
    assert sel.excluded_by("Ac") == "excluded in pyproject.toml"
    # the command line's includes replace the file's; excludes add up
    cli = load_selection(["Ab,C"], ["C"], rootdir=tmp_path)
    assert cli.include == ("Ab", "C") and not cli.selects("Ab") and not cli.selects("C")


def test_a_pyproject_without_the_table_selects_everything(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    sel = load_selection(rootdir=tmp_path)
    assert sel.include == () and dict(sel.exclude) == {} and sel.selects("Anything")


def test_a_conformance_file_with_top_level_keys(tmp_path):
    file = tmp_path / "kit.toml"
    file.write_text('exclude = "Cum*"\n')
    sel = load_selection(file=file)
    assert sel.excluded_by("Cumsum") == "excluded in kit.toml" and sel.selects("Sum")


@pytest.mark.parametrize(("text", "message"), [
    ('[tool.other]\nx = 1\n', "has neither a \\[tool.tensorplug.conformance\\] table nor top-level"),
    ('exclude = 3\n', "'exclude' must be a list of glob patterns of kernel names"),
    ('exclude = [\n', "is not valid TOML"),
])
def test_conformance_file_errors(tmp_path, text, message):
    file = tmp_path / "kit.toml"
    file.write_text(text)
    with pytest.raises(SelectionError, match=message):
        load_selection(file=file)


def test_a_missing_conformance_file(tmp_path):
    with pytest.raises(SelectionError, match="cannot read the conformance file .*nope.toml"):
        load_selection(file=tmp_path / "nope.toml")


# -- the coverage summary ----------------------------------------------------------------------
PLAN = Plan("toy", ("Add", "Exp", "Log", "Sin", "Sum", "Tanh"),
            frozenset({"Add", "Exp", "Log", "Sin", "Sum"}),
            frozenset({"Add", "Exp", "Log", "Sum"}), optional_missing=("Erf",))


def test_summary_by_category():
    cov = Coverage()
    cov.record("kernel", "Add", Record("passed", "passed", "values"))
    cov.record("gradient", "Add", Record("passed", "passed", "values"))
    cov.record("kernel", "Exp", Record("failed", "failed", "values"))
    cov.record("gradient", "Exp", Record("passed", "passed", "values"))
    cov.record("kernel", "Log", Record("passed", "passed", "none"))
    cov.record("gradient", "Log", Record("xfailed", "blocked", "none", ("Reshape", "Fill")))
    cov.record("kernel", "Sin", Record("failed", "missing", "values"))
    cov.record("gradient", "Sin", Record("failed", "missing", "values"))
    sel = load_selection([], ["Tanh"])
    lines = cov.summary(PLAN, sel, "pytest ... --tensorplug-include NAME", width=200)
    assert lines == [
        "backend 'toy': 6 kernel specs, 4 implemented; 1 passing, 1 failing, 1 blocked, 1 missing, "
        "1 excluded, 1 not run",
        "passing (1): Add",
        "failing (1): Exp (kernel)",
        "blocked (1): Log (gradient needs Reshape, Fill)",
        "missing (1): Sin",
        "excluded (1, --tensorplug-exclude): Tanh",
        "not run (1): Sum",
        "gradients: 3 checked, 2 passing, 0 failing, 1 blocked",
        "gradients need, backend lacks (2): Fill, Reshape",
        "no reference values (shapes, dtypes and gradient checked only): Log",
        "plugin kernel specs this backend does not provide (optional): Erf",
        "rerun one kernel: pytest ... --tensorplug-include NAME",
    ]


def test_summary_of_a_complete_backend_and_wrapping():
    cov = Coverage()
    names = [f"Kernel{i:02d}" for i in range(12)]
    plan = Plan("full", tuple(names), frozenset(), frozenset(names))
    for n in names:
        cov.record("kernel", n, Record("passed", "passed", "values"))
    lines = cov.summary(plan, load_selection(), "rerun", width=40)
    assert lines == ["backend 'full': 12 kernel specs, 12 implemented; 12 passing, 0 failing, 0 missing, "
                     "0 excluded", "passing (12): every checked kernel"]
    cov.record("kernel", "Kernel00", Record("failed", "failed", "values"))
    wrapped = cov.summary(plan, load_selection(), "rerun", width=40)
    assert wrapped[1].startswith("passing (11): Kernel01, Kernel02,\n    Kernel03, Kernel04, Kernel05,\n    ")
    assert all(len(line) <= 40 for line in wrapped[1].splitlines())
    assert wrapped[2] == "failing (1): Kernel00 (kernel)" and wrapped[-1] == "rerun one kernel: rerun"


def test_user_property_round_trip():
    assert parse_property("gradient|Exp|blocked|values|Fill,Reshape") == (
        "gradient", "Exp", Record("", "blocked", "values", ("Fill", "Reshape")))
    assert parse_property("kernel|Exp|passed|values|") == (
        "kernel", "Exp", Record("", "passed", "values", ()))
    assert parse_property("garbage") is None


@pytest.mark.slow
def test_a_backend_that_fails_to_start(tmp_path):
    from _toy_dist import make_dist

    site = tmp_path / "site"
    make_dist(site, """
        class Broken:
            def __init__(self):
                raise RuntimeError("no device found")

        @hookimpl
        def tensorplug_backends(register):
            register(BackendConfig("broken", Broken, priority=-9))
    """, name="broken")
    run = run_kit("broken", "--tensorplug-include", "Exp,Add", cwd=tmp_path, pythonpath=site)
    assert run.returncode == 1
    assert "the backend failed to start: Backend 'broken' failed to start: RuntimeError: no device found" \
           in run.summary
    assert "opcheck 'Exp' on backend 'broken' could not run: TensorplugError: Backend 'broken' failed to " \
           "start" in run.failure("test_kernel[Exp]")
    assert "failing (2): Add (kernel, gradient, batching), Exp (kernel, gradient, batching)" in run.summary


@pytest.mark.slow
def test_the_onnx_option_runs_the_lowerings_and_a_wrong_one_fails(tmp_path):
    pytest.importorskip("onnxruntime")
    from _toy_dist import make_dist

    site = tmp_path / "site"
    make_dist(site, """
        from tensorplug.extend import OnnxLowering

        @hookimpl
        def tensorplug_onnx_lowerings(register):
            register(OnnxLowering("Sin", lambda ctx: ctx.node("Cos", ctx.inputs, ctx.out)), override=True)
    """, name="wrong-sin")
    run = run_kit("numpy", "--tensorplug-include", "Sin,Eye", "--tensorplug-onnx", "-vv", cwd=tmp_path,
                  pythonpath=site)
    assert run.returncode == 1, run.stdout[-2000:]
    assert "test_onnx.py::test_onnx[Eye] PASSED" in run.stdout
    assert "test_kernel[Sin] PASSED" in run.stdout
    failure = run.failure("test_onnx[Sin]")
    assert "output 'out': " in failure and "values differ beyond rtol 1e-05" in failure, failure
    assert "--tensorplug-include Sin --tensorplug-onnx" in failure
    assert "failing (1): Sin (onnx)" in run.summary
    assert "onnx lowerings: 2 checked in onnxruntime, 1 passing, 1 failing: failing Sin" in run.summary
    plain = run_kit("numpy", "--tensorplug-include", "Sin", "-vv", cwd=tmp_path)
    assert plain.returncode == 0 and "test_onnx" not in plain.stdout and "onnx lowerings" not in plain.summary
