"""The pytest plugin of tensorplug's conformance kit (entry point group ``pytest11``).

Inactive unless ``--tensorplug-backend NAME`` is given; then

    pytest --pyargs tensorplug.testing.conformance --tensorplug-backend NAME

runs one test per kernel spec (``test_kernel[Exp]``: values, shapes, dtypes, bad inputs) and
one per differentiable kernel (``test_gradient[Exp]``), filtered by ``--tensorplug-include``
/ ``--tensorplug-exclude`` (glob patterns) and ``[tool.tensorplug.conformance]`` in the
rootdir's pyproject.toml (or ``--tensorplug-conformance-file``), and closes with a coverage
summary: kernels passing, failing, missing and excluded, by name. ``--tensorplug-onnx`` adds one
test per kernel with an ONNX lowering (``test_onnx[Exp]``: the lowering run in onnxruntime
against the kernel, the opcheck "onnx" check; needs onnx and onnxruntime). A missing kernel fails its
tests, so the run is non-zero until the backend implements it or excludes it explicitly.
"""

from __future__ import annotations

import importlib.util
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tensorplug.testing.coverage import Coverage, Plan, Record, make_plan, parse_property

if TYPE_CHECKING:
    from tensorplug.core.runtime import Runtime
from tensorplug.backends.lifecycle import backend_info, list_backends
from tensorplug.registry.onnx_lowerings import find_onnx_lowering
from tensorplug.testing.isolation import isolated_registries
from tensorplug.testing.opcheck import opcheck
from tensorplug.testing.opcheck_batching import MAX_BATCHING_CASES
from tensorplug.testing.selection import Selection, SelectionError, load_selection

PROPERTY = "tensorplug-conformance"
#: the conformance module of the "onnx" check, collected only with --tensorplug-onnx
ONNX_MODULE = Path(__file__).parent / "conformance" / "test_onnx.py"
_KEY = pytest.StashKey["Conformance"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tensorplug", "tensorplug conformance kit")
    group.addoption("--tensorplug-backend", metavar="NAME", default=None,
                    help="run the tensorplug conformance suite (--pyargs tensorplug.testing.conformance) "
                         "against this installed backend")
    group.addoption("--tensorplug-include", metavar="PATTERNS", action="append", default=[],
                    help="check only kernels matching these comma-separated glob patterns (repeatable)")
    group.addoption("--tensorplug-exclude", metavar="PATTERNS", action="append", default=[],
                    help="do not check kernels matching these comma-separated glob patterns (repeatable)")
    group.addoption("--tensorplug-conformance-file", metavar="PATH", default=None,
                    help="TOML file with include/exclude patterns (default: [tool.tensorplug.conformance] "
                         "in the rootdir's pyproject.toml)")
    group.addoption("--tensorplug-max-cases", metavar="N", type=int, default=None,
                    help="check at most N cases per kernel (at least the first of each combination of "
                         "input dtypes, then cases spread over the rest): a bounded run for a compiling "
                         "backend, where every distinct case compiles; default: every case")
    group.addoption("--tensorplug-batching-cases", metavar="N", type=int, default=MAX_BATCHING_CASES,
                    help=f"check each batching rule on at most N cases (default {MAX_BATCHING_CASES}), each "
                         "in up to three batch layouts: fewer for a compiling backend, where every "
                         "batched shape compiles")
    group.addoption("--tensorplug-gradient-order", metavar="N", type=int, default=2,
                    help="check gradients to this order (default 2; float32-only backends check order 1)")
    group.addoption("--tensorplug-onnx", action="store_true", default=False,
                    help="also run each selected kernel's ONNX lowering in onnxruntime against the kernel "
                         "(test_onnx[KERNEL]; needs the onnx and onnxruntime packages)")


class Conformance:
    """One conformance run: the backend, the selection, and the outcomes recorded so far."""

    def __init__(self, config: pytest.Config, backend: str) -> None:
        self.config = config
        self.backend = backend
        file = config.getoption("tensorplug_conformance_file")
        try:
            self.selection: Selection = load_selection(
                config.getoption("tensorplug_include"), config.getoption("tensorplug_exclude"),
                Path(file) if file else None, _settings_dir(config))
        except SelectionError as exc:
            raise pytest.UsageError(f"tensorplug conformance: {exc}") from None
        self.order = max(1, config.getoption("tensorplug_gradient_order"))
        self.max_cases: int | None = config.getoption("tensorplug_max_cases")
        self.batching_cases: int = max(1, config.getoption("tensorplug_batching_cases"))
        self.onnx: bool = config.getoption("tensorplug_onnx")
        if self.onnx:
            lacking = [m for m in ("onnx", "onnxruntime") if importlib.util.find_spec(m) is None]
            if lacking:
                raise pytest.UsageError(
                    f"--tensorplug-onnx runs the ONNX lowerings in onnxruntime, which needs "
                    f"{' and '.join(lacking)}: pip install onnx onnxruntime (or "
                    "'tensorplug-core[onnx]' onnxruntime).")
        self.coverage = Coverage()
        self._plan: Plan | None = None

    @property
    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = make_plan(self.backend)
        return self._plan

    def kernels(self) -> list[str]:
        return self.plan.checked(self.selection)

    def gradients(self) -> list[str]:
        return [k for k in self.kernels() if k in self.plan.differentiable]

    def lowered(self) -> list[str]:
        """The selected kernels the backend implements that have an ONNX lowering (what
        --tensorplug-onnx checks)."""
        return [k for k in self.kernels() if k in self.plan.implemented and find_onnx_lowering(k) is not None]

    def rerun(self, kernel: str) -> str:
        return ("pytest --pyargs tensorplug.testing.conformance --tensorplug-backend "
                f"{shlex.quote(self.backend)} --tensorplug-include {shlex.quote(kernel)}"
                + (" --tensorplug-onnx" if self.onnx else ""))

    def check(self, check: str, kernel: str, node: pytest.Item) -> None:
        """Run opcheck for one test and fail it (message only, no traceback) on a problem."""
        checks = {"kernel": ("values", "errors"), "gradient": ("gradient", "jvp")}.get(check, (check,))
        try:
            result = opcheck(kernel, self.backend, checks=checks, gradient_order=self.order,
                             rerun=self.rerun(kernel), max_cases=self.max_cases,
                             batching_cases=self.batching_cases)
        except Exception as exc:
            node.user_properties.append((PROPERTY, f"{check}|{kernel}|failed||"))
            pytest.fail(f"opcheck '{kernel}' on backend '{self.backend}' could not run: "
                        f"{type(exc).__name__}: {exc}\nrerun: {self.rerun(kernel)}", pytrace=False)
        node.user_properties.append((PROPERTY, f"{check}|{kernel}|{result.status}|{result.reference}|"
                                               f"{','.join(result.blocked_by)}"))
        if result.ok:
            return
        if result.status == "blocked" and not any(self.selection.selects(k) for k in result.blocked_by):
            pytest.xfail(f"the gradient of '{kernel}' needs {', '.join(result.blocked_by)}, which this "
                         "backend does not have and the run does not select (excluded, or not included)")
        pytest.fail(result.report(), pytrace=False)

    # -- hooks (this object is registered as a plugin while the run is active) --------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record each conformance test's outcome (on the xdist controller too: reports carry
        the user property the test left)."""
        parsed = next((p for k, v in report.user_properties if k == PROPERTY
                       for p in [parse_property(str(v))] if p is not None), None)
        if parsed is None:
            key = _kernel_of(report.nodeid)
            if key is not None and report.failed and report.when != "call":  # a setup error
                self.coverage.record(key[0], key[1], Record("failed", "failed", ""))
            return
        check, kernel, partial = parsed
        if report.when == "call" or report.failed:
            outcome = ("passed" if report.passed and report.when == "call" else
                       "xfailed" if hasattr(report, "wasxfail") else "failed")
            self.coverage.record(check, kernel, Record(outcome, partial.status, partial.reference,
                                                       partial.blocked_by))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):  # an xdist worker: the controller summarizes
            return
        terminalreporter.write_sep("=", "tensorplug conformance")
        if not self.coverage.records:
            terminalreporter.write_line(
                "no conformance test ran; the suite runs with: pytest --pyargs "
                f"tensorplug.testing.conformance --tensorplug-backend {shlex.quote(self.backend)}")
            return
        writer = getattr(terminalreporter, "_tw", None)
        width = writer.fullwidth if writer is not None else 100
        for line in self.coverage.summary(self.plan, self.selection, self.rerun("NAME"), width):
            terminalreporter.write_line(line)

    def header(self) -> list[str]:
        source = next((b["source"] for b in backend_info() if b["name"] == self.backend), None)
        lines = [f"tensorplug conformance: backend '{self.backend}'"
                 + (f" (registered by '{source}')" if source else "")]
        if self.selection.include or self.selection.exclude:
            lines.append(f"  include: {list(self.selection.include) or 'all'}; exclude: "
                         f"{list(self.selection.exclude) or 'none'}")
        return lines


def _conformance(config: pytest.Config) -> Conformance | None:
    return config.stash.get(_KEY, None)


def pytest_configure(config: pytest.Config) -> None:
    backend = config.getoption("tensorplug_backend", None)
    if not backend:
        return
    known = list_backends()
    if backend not in known:
        raise pytest.UsageError(
            f"--tensorplug-backend {backend}: no backend of that name is installed; installed backends: "
            f"{known or 'none'}. Install the backend's distribution (e.g. pip install -e .) first.")
    conf = config.stash[_KEY] = Conformance(config, backend)
    config.pluginmanager.register(conf, "tensorplug-conformance-run")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The conformance suite's onnx module is collected only with --tensorplug-onnx."""
    if collection_path.name != ONNX_MODULE.name or config.getoption("tensorplug_onnx", False):
        return None
    return True if collection_path.resolve() == ONNX_MODULE.resolve() else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    conf = _conformance(config)
    return conf.header() if conf is not None else []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    wanted = [n for n in ("tensorplug_kernel", "tensorplug_gradient", "tensorplug_batching",
                          "tensorplug_onnx") if n in metafunc.fixturenames]
    if not wanted:
        return
    conf = _conformance(metafunc.config)
    if conf is None:
        pytest.fail("the tensorplug conformance suite checks one backend: pass --tensorplug-backend NAME "
                    f"(installed backends: {list_backends() or 'none'})", pytrace=False)
    for arg in wanted:
        chosen = {"tensorplug_gradient": conf.gradients, "tensorplug_onnx": conf.lowered}
        names = chosen.get(arg, conf.kernels)()
        metafunc.parametrize(arg, names, ids=names)


@pytest.fixture
def tensorplug_conformance(request: pytest.FixtureRequest) -> Conformance:
    """The running conformance check (only with --tensorplug-backend)."""
    conf = _conformance(request.config)
    if conf is None:
        pytest.fail("this test needs --tensorplug-backend NAME", pytrace=False)
    return conf


@pytest.fixture
def tensorplug_runtime() -> Iterator[Runtime]:
    """A runtime of the test's own (a copy of the one in use: registries, plugins, started
    backends), swapped in for the test: what it registers, loads or starts is undone after it."""
    with isolated_registries() as runtime:
        yield runtime


def _kernel_of(nodeid: str) -> tuple[str, str] | None:
    """('kernel', 'gradient', 'batching' or 'onnx', kernel name) from a conformance test's node id."""
    for check in ("kernel", "gradient", "batching", "onnx"):
        marker = f"::test_{check}["
        if marker in nodeid and nodeid.endswith("]"):
            return check, nodeid.split(marker, 1)[1][:-1]
    return None


def _settings_dir(config: pytest.Config) -> Path:
    """Where [tool.tensorplug.conformance] is looked for: the rootdir, or, when the rootdir has no
    pyproject.toml, the directory pytest was invoked from."""
    for d in (config.rootpath, config.invocation_params.dir):
        if (d / "pyproject.toml").is_file():
            return d
    return config.rootpath
