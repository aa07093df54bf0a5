"""opcheck against deliberately broken kernels and gradients on a toy backend (numpy in boxes,
registered by hand inside the isolated registries): each kind of mistake is caught and
reported with the kernel, the inputs' shapes and dtypes, expected vs got, and the rerun line."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import install_toy_backend, toy_kernel
from tensorplug.dtypes import FLOAT_DTYPES
from tensorplug.errors import IndexOutOfRangeError, KernelSpecNotFoundError
from tensorplug.extend import (
    GradConfig,
    KernelConfig,
    KernelSpec,
    override_gradient,
    register_gradient,
    register_kernel,
    register_kernel_spec,
    unregister_gradient,
)
from tensorplug.kernels.shape_rules import same_as_first
from tensorplug.testing import OpCheckError, Reference, assert_opcheck, opcheck, register_reference
from tensorplug.testing.references import REFERENCES


def replace(kernel: str, func, backend: str = "toy") -> None:
    """Register `func` (a numpy kernel function) as the toy backend's `kernel`."""
    register_kernel(KernelConfig(kernel, backend, toy_kernel(kernel, func)), override=True)


def unary(fn):
    return lambda inputs, attrs, backend: fn(inputs[0])


@pytest.fixture
def toy():
    install_toy_backend("toy")
    return "toy"


def test_a_correct_backend_passes(toy):
    for name in ("Exp", "Add", "Sum", "Gather", "Concat", "RandomUniform"):
        result = opcheck(name, backend=toy)
        assert result.ok, result.report()
        assert result.status == "passed" and result.cases > 0 and result.bad_cases > 0


def test_missing_kernel():
    install_toy_backend("toy", without=("Exp",))
    result = opcheck("Exp", backend="toy")
    assert result.status == "missing" and not result.implemented
    with pytest.raises(OpCheckError, match=r"(?s)kernel 'Exp' is missing on backend 'toy'.*"
                                           r"it is registered for [^;]*'numpy'.*KernelConfig\('Exp', 'toy'"):
        result.assert_ok()


def test_wrong_values_name_the_worst_element_and_the_rerun_command(toy):
    replace("Sin", unary(np.cos))
    result = opcheck("Sin", backend=toy, checks=("values",))
    assert [p.kind for p in result.problems] == ["values"] * len(result.problems)
    with pytest.raises(OpCheckError, match=r"(?s)opcheck 'Sin' on backend 'toy': \d+ problem.*"
                                           r"values with x: float32\[\]; attrs \{\}.*"
                                           r"worst element at index \(\): got .*, expected .*"
                                           r"got: .*expected: .*"
                                           r"rerun: python -c .*opcheck\('Sin', backend='toy'\)"):
        assert_opcheck("Sin", backend=toy, checks=("values",))


def test_wrong_values_only_at_special_points(toy):
    # rounding halves away from zero (not to even) passes random values, not the halves
    replace("Round", unary(lambda x: np.round(x) if x.dtype.kind == "c" else  # (complex: right)
                           (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype)))
    result = opcheck("Round", backend=toy, checks=("values",))
    assert result.problems and all("(special)" in p.case for p in result.problems)
    assert "worst element at index (2,): got -1, expected -0" in result.report()


def test_wrong_dtype(toy):
    replace("Sqrt", unary(lambda x: np.sqrt(x.astype(np.float64))))
    with pytest.raises(OpCheckError, match=r"(?s)outputs with x: float32\[\].*Kernel 'Sqrt' on backend "
                                           r"'toy' .*returned float64\[\] as output 'out' from inputs "
                                           r"x: float32\[\]; the kernel spec says float32\[\]"):
        assert_opcheck("Sqrt", backend=toy, checks=("values",))


def test_wrong_shape(toy):
    def no_keepdims(inputs, attrs, backend):
        return np.sum(inputs[0], axis=attrs["axis"] if inputs[0].ndim else None)
    replace("Sum", no_keepdims)
    with pytest.raises(OpCheckError, match=r"(?s)outputs with x: \w+\[1\]; attrs \{axis=None, "
                                           r"keepdims=True\}.*returned \w+\[\] as output 'out'.*the kernel "
                                           r"spec says \w+\[1\]"):
        assert_opcheck("Sum", backend=toy, checks=("values",))


def test_a_kernel_that_raises_on_valid_inputs(toy):
    def exp(inputs, attrs, backend):
        if inputs[0].size == 0:
            raise ValueError("empty arrays are not supported")
        return np.exp(inputs[0])
    replace("Exp", exp)
    with pytest.raises(OpCheckError, match=r"(?s)raised with x: float32\[0\].*KernelError: Kernel 'Exp' on "
                                           r"backend 'toy'.*empty arrays are not supported"):
        assert_opcheck("Exp", backend=toy, checks=("values",))


def test_a_kernel_that_writes_its_input(toy):
    replace("Negative", unary(lambda x: np.negative(x, out=x)))
    with pytest.raises(OpCheckError, match=r"(?s)mutated with x: int\d+\[\].*changed one of its input "
                                           r"arrays"):
        assert_opcheck("Negative", backend=toy, checks=("values",))


def test_an_index_out_of_range_must_raise_not_clamp(toy):
    # what jnp.take does by default: clamp the index into range
    replace("Gather", lambda inputs, attrs, backend: np.take(inputs[0], np.clip(
        inputs[1], -inputs[0].shape[attrs["axis"]], inputs[0].shape[attrs["axis"]] - 1), attrs["axis"]))
    result = opcheck("Gather", backend=toy, checks=("values", "errors"))
    assert {p.kind for p in result.problems} == {"error"}
    assert "an index past the end (it must not be clamped or wrapped): expected IndexOutOfRangeError, " \
           "but the call succeeded" in result.report()


def test_bad_inputs_give_the_specs_typed_errors(toy):
    result = opcheck("Add", backend=toy, checks=("errors",))
    assert result.ok and result.bad_cases >= 4   # wrong dtype, mixed dtypes, unknown attr, no broadcast
    with pytest.raises(IndexOutOfRangeError):    # what the Gather bad case relies on
        tp.take(tp.asarray([1.0, 2.0]), tp.asarray([2]))


def test_missing_gradient(toy):
    unregister_gradient("Exp")
    result = opcheck("Exp", backend=toy, checks=("gradient",))
    assert result.gradient == "missing"
    with pytest.raises(OpCheckError, match=r"no gradient is registered for 'Exp', and its spec says it is "
                                           r"differentiable"):
        result.assert_ok()


def _wrong_sin_gradient(dy, saved, attrs):
    (x,) = saved
    return {"x": lambda: dy * tp.sin(x)}  # should be cos


WRONG_SIN = GradConfig("Sin", _wrong_sin_gradient, inputs_to_save=("x",))


def test_wrong_gradient_scoped_override(toy):
    with override_gradient(WRONG_SIN):
        result = opcheck("Sin", backend=toy, checks=("gradient",))
    assert [p.kind for p in result.problems] == ["gradient"] * 4
    assert "worst element: index" in result.report() and "analytic" in result.report()
    assert "function kernel Sin, differentiated arguments arg 0: float64" in result.report()


def test_a_gradient_override_by_another_plugin_is_noted_not_checked(toy):
    register_gradient(WRONG_SIN, override=True)  # registered by "user code", not the toy backend
    result = opcheck("Sin", backend=toy, checks=("gradient",))
    assert result.ok, result.report()
    assert "in force is an override by 'user code'; the kit checked the one registered by " \
           "'tensorplug-core'" in result.report()


def test_a_gradient_kernel_the_backend_lacks():
    install_toy_backend("toy", without=("StridedSliceGrad",))
    result = opcheck("StridedSlice", backend="toy", checks=("gradient",))
    assert result.status == "blocked" and result.blocked_by == ["StridedSliceGrad"]
    assert "- blocked:\n    checking the gradient of 'StridedSlice' needs kernel(s) StridedSliceGrad, " \
           "which backend 'toy' does not have: tp.grad through 'StridedSlice' (or its higher derivatives) " \
           "fails there until it has them" in result.report()


def test_float32_only_backend_skips_float64_and_checks_gradients_in_float32():
    config = install_toy_backend("f32")

    class Float32Backend(config.factory):
        def from_numpy(self, array):
            return super().from_numpy(array.astype(np.float32) if array.dtype == np.float64 else array)
    tp.extend.register_backend(tp.extend.BackendConfig("f32", Float32Backend, priority=-1), override=True)
    result = opcheck("Tanh", backend="f32", gradient_order=2)
    assert result.ok, result.report()
    assert result.gradient == "checked on 4 case(s) in float32"
    assert ("7 case(s) not run, in dtypes the backend does not hold or the kernel does not serve: "
            "float64: from_numpy of float64 gave float32 (to_numpy: float32) (declare them in its "
            "plugin: BackendConfig('f32', factory, dtypes=(tp.bool, tp.int8,") in result.report()
    assert "gradients checked to order 1 only: order 2 needs float64" in result.notes


def test_random_kernel_ignoring_its_seed(toy):
    rng = np.random.default_rng(0)
    replace("RandomUniform", lambda inputs, attrs, backend: rng.random(attrs["shape"]).astype(
        attrs["dtype"].numpy))
    with pytest.raises(OpCheckError, match=r"(?s)values with no inputs; attrs \{shape=\(\), seed=7.*"
                                           r"the same seed \(7\) gave different values"):
        assert_opcheck("RandomUniform", backend=toy, checks=("values",))


def _declare_erf(shape_bug: bool = False) -> None:
    register_kernel_spec(KernelSpec("TestErf", ("x",), same_as_first, input_dtypes={"x": FLOAT_DTYPES}))
    erf = np.vectorize(math.erf, otypes=[np.float64])

    def kernel(inputs, attrs, backend):
        x = inputs[0]
        out = erf(x).astype(x.dtype)
        return out.reshape(-1) if shape_bug else out
    register_kernel(KernelConfig("TestErf", "numpy", kernel))

    def grad(dy, saved, attrs):
        (x,) = saved
        return {"x": lambda: dy * (2 / math.sqrt(math.pi)) * tp.exp(-x * x)}
    register_gradient(GradConfig("TestErf", grad, inputs_to_save=("x",)))


def test_a_plugin_kernel_without_reference_is_checked_for_shapes_and_gradient():
    tp.extend.start_backend("numpy")
    _declare_erf()
    result = opcheck("TestErf", backend="numpy")
    # six cases (shapes) per float dtype
    assert result.ok and result.reference == "none" and result.cases == 6 * len(FLOAT_DTYPES), result.report()
    assert result.gradient.startswith("checked on")
    assert "no reference values" in result.report()


def test_a_plugin_kernel_without_reference_still_fails_on_the_wrong_shape():
    tp.extend.start_backend("numpy")
    _declare_erf(shape_bug=True)
    with pytest.raises(OpCheckError, match=r"(?s)outputs with x: float32\[2, 3\].*returned float32\[6\] as "
                                           r"output 'out'.*the kernel spec says float32\[2, 3\]"):
        assert_opcheck("TestErf", backend="numpy", checks=("values",))


def test_teaching_the_kit_a_plugin_kernel(monkeypatch):
    monkeypatch.setattr("tensorplug.testing.references._base.REFERENCES", dict(REFERENCES))
    tp.extend.start_backend("numpy")
    _declare_erf()
    cases = REFERENCES["Exp"].cases
    register_reference(Reference("TestErf", cases, compute=np.vectorize(math.erf, otypes=[np.float64])))
    assert opcheck("TestErf", backend="numpy").reference == "values"
    wrong = Reference("TestErf", cases, compute=np.tanh)
    with pytest.raises(OpCheckError, match=r"(?s)values with x: float32\[4\].*worst element"):
        assert_opcheck("TestErf", backend="numpy", reference=wrong, checks=("values",))


def test_reference_registration_errors(monkeypatch):
    monkeypatch.setattr("tensorplug.testing.references._base.REFERENCES", dict(REFERENCES))
    with pytest.raises(tp.RegistrationError, match="already has a reference for 'Exp'; pass override=True"):
        register_reference(Reference("Exp", REFERENCES["Exp"].cases, compute=np.exp2))
    with pytest.raises(tp.RegistrationError, match="needs exactly one of compute="):
        register_reference(Reference("Other", REFERENCES["Exp"].cases))


def test_usage_errors():
    with pytest.raises(KernelSpecNotFoundError, match="No kernel spec named 'Expp'. Did you mean 'Exp'"):
        opcheck("Expp", backend="numpy")
    with pytest.raises(ValueError, match=r"unknown check\(s\) \['speed'\]"):
        opcheck("Exp", backend="numpy", checks=("speed",))
    with pytest.raises(tp.BackendNotFoundError, match="No backend named 'nope'"):
        opcheck("Exp", backend="nope")


def test_bounded_cases_keep_every_dtype_combination_and_spread_the_rest():
    from tensorplug.testing.inputs import Case
    from tensorplug.testing.opcheck import bounded

    f64, f32, i64 = (np.zeros(2, d) for d in (np.float64, np.float32, np.int64))
    cases = [Case((f64,), {"k": i}) for i in range(20)] + [Case((f32,), {"k": 20}), Case((i64,), {"k": 21})]
    kept = bounded(cases, 6)
    assert len(kept) == 6 and [c.attrs["k"] for c in kept][:1] == [0]
    assert {str(c.inputs[0].dtype) for c in kept} == {"float64", "float32", "int64"}
    assert kept == sorted(kept, key=lambda c: c.attrs["k"])  # in their order
    assert bounded(cases, None) == cases and bounded(cases, 100) == cases
    assert len(bounded(cases, 1)) == 3  # never fewer than one case per dtype combination


def test_a_sum_reading_uint16_as_int16_fails_on_the_dtypes_extremes(toy):
    """The kit's integer cases reach each dtype's extremes and 2^(n-1) (issue 36): small samples
    alone (0..3) let a Sum that widens uint16 as if it were int16 pass."""
    def sum_as_signed(inputs, attrs, backend):
        x = inputs[0]
        axis = attrs["axis"] if x.ndim else None
        if x.dtype != np.uint16:
            return np.sum(x, axis=axis, keepdims=attrs["keepdims"])
        # the bug: uint16 read as int16, summed in int64 and handed back as the spec's uint64
        wrong = np.sum(x.view(np.int16), axis=axis, keepdims=attrs["keepdims"], dtype=np.int64)
        return wrong.astype(np.uint64)
    replace("Sum", sum_as_signed)
    with pytest.raises(OpCheckError, match=r"(?s)values with x: uint16\[4\]; attrs \{axis=None, "
                                           r"keepdims=False\} \(special\):.*"
                                           r"inputs: x = \[    0, 65535, 32768,     1\]"):
        assert_opcheck("Sum", backend=toy, checks=("values",))
