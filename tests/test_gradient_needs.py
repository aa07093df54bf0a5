"""Every kernel a gradient needs, found at once by running it abstractly (tensorplug.transforms.abstract,
tensorplug.testing.needs), and reported by the kit, `tensorplug kernels --needs` and
`tensorplug doctor` (issue 18 item 1, issue 17 item 5)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import install_toy_backend
from tensorplug.cli import main
from tensorplug.core.runtime import current
from tensorplug.errors import KernelNotFoundError
from tensorplug.extend import GradConfig, get_kernel_spec, register_gradient
from tensorplug.profiler import count_kernels
from tensorplug.registry._slots import registering_as
from tensorplug.testing import opcheck
from tensorplug.testing.needs import gradient_needs, minimum_grad_kernels, needs_of, sample_cases
from tensorplug.transforms.abstract import ABSTRACT_BACKEND, abstract_backend
from tensorplug.transforms.autodiff.tape import Entry, gradient_thunks

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "writing-a-backend.md"
#: gradients that refuse by design (so have no needs to find): While's, as JAX's while_loop is
#: not reverse-differentiable (tests/test_control_flow.py checks its error)
REFUSING = {"While"}
CORE_GRADIENTS = sorted(set(current().gradients.active) - REFUSING)  # the core's, registered at import


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _clipped_tanh_gradient(dy, saved, attrs):
    (y,) = saved
    return {"x": lambda: dy * (1 - tp.clip(y, -1.0, 1.0) ** 2)}


def _register_clipped_tanh() -> None:
    """A plugin's override of Tanh's gradient that uses tp.clip (the case of issue 17)."""
    with registering_as("clippy"):
        register_gradient(GradConfig("Tanh", _clipped_tanh_gradient, outputs_to_save=("out",)), override=True)


# -- the abstract run finds what a real run dispatches -----------------------------------------
@pytest.mark.parametrize("kernel", CORE_GRADIENTS)
def test_the_abstract_needs_are_the_kernels_a_real_run_dispatches(kernel, core_gradients):
    """On the numpy backend, the gradient run on the same inputs with real values dispatches
    exactly the kernels found on shapes and dtypes alone."""
    needs = needs_of(kernel)
    assert needs.untraced == "", needs.untraced
    spec = get_kernel_spec(kernel)
    cases = sample_cases(spec)
    assert cases
    real: set[str] = set()
    for case in cases:
        inputs = tuple(tp.asarray(a, dtype=tp.dtypes.from_numpy_dtype(a.dtype)) for a in case.inputs)
        attrs = spec.normalize_attrs(case.attrs)
        out = tp.run_kernel(kernel, {spec.inputs[0]: list(inputs)} if spec.variadic
                            else dict(zip(spec.inputs, inputs)), attrs)
        outputs = out if isinstance(out, tuple) else (out,)
        dy = tuple(tp.ones_like(o) for o in outputs)
        with count_kernels() as calls:
            thunks = gradient_thunks(Entry(kernel, inputs, attrs, outputs), dy[0] if len(dy) == 1 else dy)
            for t, thunk in zip(inputs, thunks):
                if thunk is not None and t.dtype.is_inexact:
                    thunk()
        real |= {name for name, _ in calls.counts}
    assert set(needs.needs) == real


def test_the_abstract_backend_is_thrown_away_and_values_are_placeholders():
    before = dict(current().kernels.active)
    with abstract_backend() as backend:
        y = tp.exp(tp.asarray([1.0, 2.0])) + 1.0
        assert tp.get_backend() == ABSTRACT_BACKEND and y.shape == (2,) and y.dtype == tp.float32
        assert backend.called == {"Exp", "Add"}
    assert dict(current().kernels.active) == before and ABSTRACT_BACKEND not in tp.list_backends()
    assert tp.get_backend() == "numpy"


def test_a_gradient_that_depends_on_values_is_reported_not_a_crash():
    def masked(dy, saved, attrs):
        (x,) = saved
        return {"x": lambda: dy * tp.sum(x[x > 0])}  # a boolean mask: NonZero, sized by the values

    register_gradient(GradConfig("Sin", masked, inputs_to_save=("x",)), override=True)
    needs = gradient_needs(["Sin", "Cos"])
    assert re.search(r"AbstractEvaluationError: kernel 'NonZero' gives an output of shape int64\[-1\], "
                     r"whose size depends on the input values", needs["Sin"].untraced)
    assert needs["Sin"].source == "user code" and "Greater" in needs["Sin"].needs
    assert needs["Cos"].untraced == "" and "Sin" in needs["Cos"].needs


# -- the kit --------------------------------------------------------------------------------------
def test_the_kit_names_every_missing_kernel_of_a_gradient_at_once():
    install_toy_backend("toy", without=("Equal", "Greater", "Reshape", "Sum"))
    result = opcheck("Maximum", backend="toy", checks=("gradient",), gradient_order=2)
    assert result.status == "blocked"
    assert result.blocked_by == ["Equal", "Greater", "Reshape", "Sum"]
    assert ("checking the gradient of 'Maximum' to order 2 needs kernel(s) Equal, Greater, Reshape, Sum, "
            "which backend 'toy' does not have") in result.report()
    with tp.backend_scope("toy"), pytest.raises(KernelNotFoundError):  # and they are really needed
        tp.grad(lambda x: tp.sum(tp.maximum(x, 0.5)))(tp.asarray([1.0, 0.0]))


def test_the_kit_fails_a_gradient_override_that_needs_a_kernel_the_backend_lacks():
    install_toy_backend("toy", without=("Clip",))
    assert opcheck("Tanh", backend="toy", checks=("gradient",)).ok  # the core's gradient
    _register_clipped_tanh()
    result = opcheck("Tanh", backend="toy", checks=("gradient",))
    assert result.status == "blocked" and result.blocked_by == ["Clip"]
    assert ("the gradient of 'Tanh' in force, registered by 'clippy', needs kernel(s) Clip, which backend "
            "'toy' does not have: tp.grad through 'Tanh' fails there. Register them for 'toy', or unregister "
            "that gradient (tensorplug.extend.unregister_gradient('Tanh', 'clippy'))") in result.report()
    assert opcheck("Tanh", backend="numpy", checks=("gradient",)).ok  # numpy has Clip
    with tp.backend_scope("toy"), pytest.raises(KernelNotFoundError, match="'Clip'"):
        tp.grad(lambda x: tp.sum(tp.tanh(x)))(tp.asarray([0.5]))


# -- tensorplug doctor and kernels --needs --------------------------------------------------------
def test_doctor_reports_a_gradient_override_needing_a_kernel_a_backend_lacks(capsys):
    install_toy_backend("toy", without=("Clip",))
    code, out = _run(capsys, "doctor")
    assert code == 0, out
    _register_clipped_tanh()
    code, out = _run(capsys, "doctor")
    assert code == 1
    assert out.startswith("tensorplug doctor: 1 problem, ")
    assert ("  [gradient needs missing kernels] gradient of Tanh (registered by clippy) on backend 'toy'\n"
            "      cause: it runs Clip, which backend 'toy' has no kernel for (found by running it on shapes "
            "and dtypes alone), so tp.grad through Tanh fails there\n"
            "      fix:   Register Clip for 'toy' (KernelConfig(name, 'toy', kernel_func) from its plugin's "
            "tensorplug_kernels hook), or drop the override: "
            "tensorplug.extend.unregister_gradient('Tanh', 'clippy') (or uninstall its plugin).") in out
    assert "on backend 'numpy'" not in out
    assert out.rstrip().endswith("Something is broken: see the fixes above.")


def test_kernels_needs_lists_each_gradients_needs_and_what_a_backend_lacks(capsys):
    install_toy_backend("toy", without=("Clip", "Sin", "StridedSliceGrad"))
    _register_clipped_tanh()
    code, out = _run(capsys, "kernels", "--needs", "--backend", "toy")
    assert code == 1
    rows = {cells[0]: cells for line in out.splitlines()
            if len(cells := re.split(r"\s{2,}", line.strip())) == 4 and not cells[0].startswith("-")}
    assert rows["kernel"] == ["kernel", "gradient", "first-order needs", "toy lacks"]
    assert "Higher derivatives also need what\n  the gradients of those kernels need" in out
    needs = gradient_needs()
    assert rows["Tanh"] == ["Tanh", "clippy (over core)", ", ".join(needs["Tanh"].needs), "Clip"]
    assert rows["Cos"] == ["Cos", "core", ", ".join(needs["Cos"].needs), "Sin"]
    assert rows["StridedSlice"][3] == "StridedSliceGrad" and rows["Exp"][3] == "-"
    assert rows["Sin"][3] == "(no kernel)"
    assert set(rows) - {"kernel"} == set(needs)
    assert f"tp.grad needs at least: {', '.join(minimum_grad_kernels())}." in out
    assert ("backend 'toy' lacks Clip, Sin, StridedSliceGrad: tp.grad fails there through Cos, "
            "StridedSlice, Tanh") in out

    code, out = _run(capsys, "kernels", "--needs", "--backend", "numpy")
    assert code == 0 and "lacks" not in out.split("tp.grad needs at least")[1]


# -- the backend guide ------------------------------------------------------------------------------
def test_the_backend_guide_lists_the_minimum_kernel_set_for_grad(core_gradients):
    text = GUIDE.read_text()
    listed = re.search(r"minimum kernel set for `tp.grad`[^\n]*\n\n```text\n([^\n]+)\n```", text)
    assert listed, "the guide has no minimum kernel set for tp.grad"
    assert listed.group(1).split(", ") == minimum_grad_kernels()
    assert "`x ** 2` dispatches `Pow`" in text
    with abstract_backend() as backend:
        x = tp.asarray(np.zeros(2))
        _ = x ** 2
        assert backend.called == {"Pow"}
