"""A plugin's reference values reach the kit through the ``tensorplug_references`` hook (no
``-p module``), attributed to the plugin, asked only when the kit runs; and a kernel the kit
has no reference for is sampled with values of both signs unless its spec declares a domain:
an Abs kernel missing its abs fails opcheck, a logarithm declaring (0, inf) passes."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import tensorplug as tp
from _conformance_run import run_kit
from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.extend import (
    API_VERSION,
    GradConfig,
    KernelConfig,
    KernelSpec,
    hookimpl,
    register_gradient,
    register_kernel,
    register_kernel_spec,
    register_plugin,
)
from tensorplug.kernels.shape_rules import same_as_first
from tensorplug.testing import Case, OpCheckError, Reference, assert_opcheck, opcheck, unary_cases
from tensorplug.testing.inputs import generic_cases, generic_domain
from tensorplug.testing.references import get_reference, plugin_references

EXAMPLE = "tensorplug-example-ops"


def test_the_example_plugins_erf_reference_is_found_through_its_hook():
    result = opcheck("Erf", backend="numpy")
    assert result.ok and result.reference == "values", result.report()
    assert result.cases >= 12 and result.gradient.startswith("checked on")
    found = plugin_references()
    assert found.registration("Erf").source == EXAMPLE
    assert get_reference("Erf") is found.active["Erf"]


def test_the_plugins_reference_holds_its_kernel_to_numpys_values():
    tp.extend.start_backend("numpy")
    register_kernel(KernelConfig("Erf", "numpy", lambda inputs, attrs, backend: np.tanh(inputs[0])),
                    override=True)
    with pytest.raises(OpCheckError, match=r"(?s)opcheck 'Erf' on backend 'numpy'.*values with x: "
                                           r"float32.*worst element"):
        assert_opcheck("Erf", backend="numpy", checks=("values",))


def test_the_conformance_suite_checks_erfs_values_without_dash_p(tmp_path):
    run = run_kit("numpy", "--tensorplug-include", "Erf", cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 passing" in run.summary and "no reference values" not in run.summary, run.summary


def test_the_kit_is_not_imported_when_the_plugin_loads():
    code = ("import sys, tensorplug as tp\n"
            "tp.ops.erf([0.5])\n"
            "print(any(m.startswith('tensorplug.testing') for m in sys.modules))\n"
            "from tensorplug.testing import opcheck\n"
            "print(opcheck('Erf', backend='numpy').reference)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "values"], out.stderr


class _ToyReferences:
    """A plugin giving the kit references (defined here, registered by hand)."""

    tensorplug_api_version = API_VERSION

    def __init__(self, *refs: object) -> None:
        self.refs = refs

    @hookimpl
    def tensorplug_references(self, register):
        for ref in self.refs:
            register(ref)


def _square_reference(name: str = "TestSquare") -> Reference:
    return Reference(name, unary_cases(), compute=np.square)


def test_a_plugin_registered_by_hand_is_asked_and_attributed():
    tp.extend.start_backend("numpy")
    register_kernel_spec(KernelSpec("TestSquare", ("x",), same_as_first, input_dtypes={"x": FLOAT_DTYPES}))
    register_kernel(KernelConfig("TestSquare", "numpy", lambda inputs, attrs, backend: inputs[0] ** 2))
    register_gradient(GradConfig("TestSquare", lambda dy, saved, attrs: {"x": lambda: dy * 2.0 * saved[0]},
                                 inputs_to_save=("x",)))
    assert get_reference("TestSquare") is None
    register_plugin(_ToyReferences(_square_reference()), name="toy-references")
    assert plugin_references().registration("TestSquare").source == "toy-references"
    result = opcheck("TestSquare", backend="numpy")
    assert result.ok and result.reference == "values", result.report()


def test_a_plugins_reference_for_a_kernel_the_kit_knows_needs_override():
    register_plugin(_ToyReferences(Reference("Exp", unary_cases(), compute=np.exp2)), name="toy-references")
    with pytest.raises(tp.PluginError, match=r"Plugin 'toy-references' .*tensorplug_references hook "
                                             r"raised RegistrationError: plugin 'toy-references' gives the "
                                             r"kit a reference for 'Exp', which the kit already has.*"
                                             r"override=True"):
        get_reference("Exp")


def test_two_plugins_giving_one_kernels_reference_is_an_error_naming_both():
    register_plugin(_ToyReferences(_square_reference()), name="toy-a")
    register_plugin(_ToyReferences(Reference("TestSquare", unary_cases(), compute=np.abs)), name="toy-b")
    with pytest.raises(tp.PluginError, match=r"(?s)'toy-b'.*'toy-a'"):
        plugin_references()


def test_a_malformed_reference_names_the_plugin_and_the_fix():
    register_plugin(_ToyReferences("not a reference"), name="toy-bad")
    with pytest.raises(tp.PluginError, match=r"Plugin 'toy-bad' .*takes a tensorplug.testing.Reference, "
                                             r"got str"):
        plugin_references()


# -- signed sampling, unless the spec declares its domain -------------------------------------
def _declare(name: str, kernel, gradient, domain=(-math.inf, math.inf)) -> None:
    tp.extend.start_backend("numpy")
    register_kernel_spec(KernelSpec(name, ("x",), same_as_first, input_dtypes={"x": FLOAT_DTYPES},
                                    domain=domain))
    register_kernel(KernelConfig(name, "numpy", lambda inputs, attrs, backend: kernel(inputs[0])))
    register_gradient(GradConfig(name, lambda dy, saved, attrs: {"x": lambda: gradient(dy, saved[0])},
                                 inputs_to_save=("x",)))


def test_generic_cases_have_both_signs_clear_of_zero():
    _declare("TestAbs", np.abs, lambda dy, x: dy * tp.sign(x))
    cases = generic_cases(tp.extend.get_kernel_spec("TestAbs"))
    floats = np.concatenate([c.inputs[0].ravel().astype(np.float64) for c in cases])
    assert (floats < 0).any() and (floats > 0).any() and (np.abs(floats) >= 0.5).all()


def test_a_kernel_missing_an_abs_fails_opcheck():
    _declare("TestAbs", np.abs, lambda dy, x: dy * tp.sign(x))
    good = opcheck("TestAbs", backend="numpy")
    assert good.ok and good.reference == "none", good.report()
    _declare("TestAbsBug", lambda x: x, lambda dy, x: dy * tp.sign(x))  # forgot the abs
    with pytest.raises(OpCheckError, match=r"(?s)opcheck 'TestAbsBug' on backend 'numpy'.*gradient"):
        assert_opcheck("TestAbsBug", backend="numpy")


def test_a_declared_domain_is_respected():
    _declare("TestLog", np.log, lambda dy, x: dy / x, domain=(0.0, math.inf))
    spec = tp.extend.get_kernel_spec("TestLog")
    assert (generic_domain(spec).low, generic_domain(spec).high) == pytest.approx((0.3, 2.7))
    assert all((c.inputs[0] > 0).all() for c in generic_cases(spec))
    result = opcheck("TestLog", backend="numpy")
    assert result.ok, result.report()
    # the same kernel, its domain not declared: negative samples give NaN, and the check fails
    _declare("TestLogUndeclared", np.log, lambda dy, x: dy / x)
    assert not opcheck("TestLogUndeclared", backend="numpy").ok


def test_a_bounded_domain_and_a_bad_one():
    _declare("TestAtanh", np.arctanh, lambda dy, x: dy / (1.0 - x * x), domain=(-1.0, 1.0))
    cases: list[Case] = generic_cases(tp.extend.get_kernel_spec("TestAtanh"))
    values = np.concatenate([c.inputs[0].ravel().astype(np.float64) for c in cases])
    assert (np.abs(values) <= 0.8).all() and (values < 0).any()
    with pytest.raises(tp.RegistrationError, match=r"KernelSpec 'Bad': domain must be \(low, high\) with "
                                                   r"low < high"):
        KernelSpec("Bad", ("x",), same_as_first, domain=(1.0, 0.0))
