"""The conformance kit on a minimal backend of our own, built and installed as a real
distribution the way docs/guide/writing-a-backend.md says (pyproject with the entry point, a
Backend subclass, a few kernels, hookimpls; built by hatchling, installed by pip into a
folder put on PYTHONPATH), with two deliberate bugs: Expm1 computed as exp(x) - 1 (wrong values
near 0) and a fused Sigmoid gradient of its own that is wrong. The kit reports the missing
kernels by name, catches both bugs with readable messages, and honours its filters."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from _conformance_run import run_kit
from tensorplug.core.runtime import current
from tensorplug.extend import list_kernel_specs
from tensorplug.registry._slots import CORE_SOURCE
from tensorplug.registry.generic_kernels import GENERIC_KERNELS

pytestmark = pytest.mark.slow  # each test runs the kit in a subprocess, some twice

BACKEND = "bugsy"
IMPLEMENTED = ["Add", "BroadcastTo", "Cast", "Exp", "Expm1", "Fill", "Multiply", "Negative", "Reshape",
               "Sigmoid", "Subtract", "Sum"]

PYPROJECT = """
[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "tensorplug-backend-bugsy"
version = "0.1.0"
dependencies = ["tensorplug-core", "numpy"]

[project.entry-points.tensorplug]
tensorplug-backend-bugsy = "tensorplug_bugsy.plugin"

[tool.hatch.build.targets.wheel]
packages = ["src/tensorplug_bugsy"]
"""

PLUGIN = '''
"""A numpy-backed backend with a few kernels and two bugs, for the conformance kit's tests."""

from typing import Any

import numpy as np

import tensorplug as tp
from tensorplug.dtypes import from_numpy_dtype
from tensorplug.extend import API_VERSION, Backend, BackendConfig, GradConfig, KernelConfig, hookimpl

tensorplug_api_version = API_VERSION
NAME = "bugsy"


class Box:
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


class BugsyBackend(Backend):
    def from_numpy(self, array):
        return Box(np.array(array, copy=True))

    def to_numpy(self, native):
        return native.data

    def dtype_of(self, native):
        return from_numpy_dtype(native.data.dtype)

    def shape_of(self, native):
        return native.data.shape


def unary(fn):
    return lambda inputs, attrs, backend: Box(fn(inputs[0].data))


def binary(fn):
    return lambda inputs, attrs, backend: Box(fn(inputs[0].data, inputs[1].data))


def sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def total(inputs, attrs, backend):
    x = inputs[0].data
    return Box(np.sum(x, axis=attrs["axis"] if x.ndim else None, keepdims=attrs["keepdims"]))


KERNELS = {
    "Add": binary(np.add), "Subtract": binary(np.subtract), "Multiply": binary(np.multiply),
    "Negative": unary(np.negative), "Exp": unary(np.exp), "Sigmoid": unary(sigmoid),
    "Expm1": unary(lambda x: np.exp(x) - 1),  # BUG: loses all precision near 0 (np.expm1 does not)
    "Sum": total,
    "Reshape": lambda inputs, attrs, backend: Box(np.reshape(inputs[0].data, attrs["shape"])),
    "BroadcastTo": lambda inputs, attrs, backend: Box(np.broadcast_to(inputs[0].data, attrs["shape"]).copy()),
    "Cast": lambda inputs, attrs, backend: Box(inputs[0].data.astype(attrs["dtype"].numpy)),
    "Fill": lambda inputs, attrs, backend: Box(np.full(attrs["shape"], attrs["value"], attrs["dtype"].numpy)),
}


def _sigmoid_gradient(dy, saved, attrs):
    (y,) = saved
    return {"x": lambda: dy * y * y}  # BUG: the derivative is y * (1 - y)


@hookimpl
def tensorplug_backends(register: Any) -> None:
    register(BackendConfig(NAME, BugsyBackend, priority=-1))


@hookimpl
def tensorplug_kernels(backend_name: str, register: Any) -> None:
    if backend_name == NAME:
        for name, func in KERNELS.items():
            register(KernelConfig(name, NAME, func))


@hookimpl
def tensorplug_gradients(register: Any) -> None:
    # a "fused" gradient of its own, replacing the core's
    register(GradConfig("Sigmoid", _sigmoid_gradient, outputs_to_save=("out",)), override=True)
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the project folder, the folder it is installed into)."""
    root = tmp_path_factory.mktemp("bugsy")
    project = root / "tensorplug-backend-bugsy"
    package = project / "src" / "tensorplug_bugsy"
    package.mkdir(parents=True)
    (project / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT).lstrip())
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(textwrap.dedent(PLUGIN).lstrip())
    site = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(site), str(project)], check=True,
                   capture_output=True, text=True)
    assert (site / "tensorplug_backend_bugsy-0.1.0.dist-info" / "entry_points.txt").is_file()
    return project, site


def kit(installed, *options: str, cwd: Path | None = None):
    project, site = installed
    return run_kit(BACKEND, *options, cwd=cwd or project, pythonpath=site)


def test_missing_kernels_and_both_bugs_are_reported(installed):
    run = kit(installed)
    assert run.returncode == 1, run.stdout[-3000:]
    summary = run.summary
    implemented = re.search(r"(\d+) kernel specs, (\d+) implemented; (\d+) passing, 2 failing", summary)
    assert implemented and int(implemented.group(2)) == len(IMPLEMENTED), summary
    assert "failing (2): Expm1 (kernel), Sigmoid (gradient)" in summary
    missing = re.search(r"missing \((\d+)\): (.*?)\ngradients", summary, re.S)
    names = [n.strip() for n in missing.group(2).split(",")]
    assert int(missing.group(1)) == len(names) and {"Abs", "MatMul", "Tanh", "Where"} <= set(names)
    assert not set(IMPLEMENTED) & set(names)
    assert ("rerun one kernel: pytest --pyargs tensorplug.testing.conformance "
            f"--tensorplug-backend {BACKEND} --tensorplug-include NAME") in summary

    absent = run.failure("test_kernel[Abs]")
    assert f"kernel 'Abs' is missing on backend '{BACKEND}'" in absent
    assert f"register(KernelConfig('Abs', '{BACKEND}', kernel_func))" in absent

    values = run.failure("test_kernel[Expm1]")
    assert re.search(r"values with x: float32\[3\]; attrs \{\} \(special\):\n    output 'out': "
                     r"worst element at index \(\d,\): got [-\d.e]+, expected [-\d.e]+ \(abs error",
                     values), values
    assert "inputs: x = [" in values and "got:      [" in values and "expected: [" in values
    assert f"rerun: pytest --pyargs tensorplug.testing.conformance --tensorplug-backend {BACKEND} " \
           "--tensorplug-include Expm1" in values

    gradient = run.failure("test_gradient[Sigmoid]")
    assert re.search(r"gradient with x: float64\[[\d, ]*\]; attrs \{\}:\n    check_gradients: "
                     r"the gradient of argument 0 disagrees with finite differences", gradient), gradient
    assert "worst element: index" in gradient and "analytic" in gradient and "numeric" in gradient
    assert "function kernel Sigmoid" in gradient


def test_the_rerun_command_checks_one_kernel(installed):
    first = kit(installed, "--tensorplug-include", "Expm1,Sigmoid")
    line = next(li for li in first.failure("test_kernel[Expm1]").splitlines() if li.startswith("rerun: "))
    argv = shlex.split(line[len("rerun: "):])
    assert argv[:5] == ["pytest", "--pyargs", "tensorplug.testing.conformance",
                        "--tensorplug-backend", BACKEND]
    again = kit(installed, *argv[5:])
    assert again.returncode == 1 and re.search(r"\n1 failed, 2 passed in ", again.stdout), again.stdout[-800:]
    assert "failing (1): Expm1 (kernel)" in again.summary


def test_exclusions_from_pyproject_and_the_command_line(installed, tmp_path):
    names = [s.name for s in list_kernel_specs()
             if current().specs.registration(s.name).source == CORE_SOURCE and s.name not in IMPLEMENTED
             and s.name not in GENERIC_KERNELS]  # (the core's generic kernels: listed, not required)
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "pyproject.toml").write_text(
        "[tool.tensorplug.conformance]\n"
        "exclude.Expm1 = 'precision near 0, see issue 12'\n"
        + "".join(f"exclude.{n} = ''\n" for n in names))
    partly = kit(installed, cwd=folder)
    assert partly.returncode == 1
    assert "excluded (1, pyproject.toml: precision near 0, see issue 12): Expm1" in partly.summary
    assert f"excluded ({len(names)}, excluded in pyproject.toml): Abs," in partly.summary
    assert "failing (1): Sigmoid (gradient)" in partly.summary and "missing (" not in partly.summary

    green = kit(installed, "--tensorplug-exclude", "Sigm*", cwd=folder)
    assert green.returncode == 0, green.stdout[-3000:]
    assert "excluded (1, --tensorplug-exclude): Sigmoid" in green.summary
    assert re.search(rf"\d+ passing, 0 failing, 0 missing, {len(names) + 2} excluded", green.summary)


def test_a_conformance_file_and_a_parallel_run(installed, tmp_path):
    settings = tmp_path / "conformance.toml"
    settings.write_text('include = ["Exp*", "Sigmoid", "Abs"]\nexclude = ["Expm1"]\n')
    run = kit(installed, "--tensorplug-conformance-file", str(settings), "-n", "2")
    assert run.returncode == 1
    summary = run.summary
    assert "passing (1): Exp" in summary and "failing (1): Sigmoid (gradient)" in summary
    assert "missing (1): Abs" in summary and "excluded (1, included in conformance.toml" not in summary
    assert "excluded (1, excluded in conformance.toml): Expm1" in summary
    assert re.search(r"not selected \(\d+\): not matching conformance.toml: Exp\*, Sigmoid, Abs", summary)
