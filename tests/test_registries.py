"""The registries: kernel specs, kernels, gradients, ops and backends; conflicts, overrides,
priorities, unregistering, scoped gradient overrides, kernel setup/dispose, and who registered
what (the conftest isolates every test's registrations)."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import tensorplug as tp
from _toy_backend import ToyBackend, install_toy_backend
from tensorplug.core.runtime import current
from tensorplug.errors import KernelSpecNotFoundError
from tensorplug.extend import (
    BackendConfig,
    BatchConfig,
    GradConfig,
    JvpConfig,
    KernelConfig,
    KernelSpec,
    OpConfig,
    contributions,
    find_gradient,
    get_gradient,
    get_kernel,
    get_kernel_spec,
    get_op,
    kernels_for_backend,
    list_kernel_specs,
    override_gradient,
    register_backend,
    register_gradient,
    register_kernel,
    register_kernel_spec,
    register_op,
    unregister_gradient,
    unregister_kernel,
    unregister_kernel_spec,
    unregister_op,
)
from tensorplug.registry._slots import CORE_SOURCE, USER_SOURCE, registering_as

NUMPY_PLUGIN = "tensorplug-backend-numpy"


def _same(infos, attrs):
    return [infos[0]]


def _spec(name: str, **kw) -> KernelSpec:
    return register_kernel_spec(KernelSpec(name=name, inputs=("x",), infer=_same, **kw))


def _cube_kernel(inputs, attrs, backend):
    return inputs[0] ** 3


def _other_cube_kernel(inputs, attrs, backend):
    return inputs[0] * inputs[0] * inputs[0]


def _grad_times(factor: float):
    """A gradient of a unary kernel: factor * dy (enough to tell gradients apart)."""

    def grad_func(dy, saved, attrs):
        return {"x": lambda: dy * factor}

    return grad_func


def _constant_grad_value(kernel: str = "ToyCube") -> float:
    return float(tp.grad(lambda x: tp.run_kernel(kernel, {"x": x}))(2.0))


@pytest.fixture
def cube():
    """A kernel spec 'ToyCube' with a numpy kernel, registered by 'toy-plugin'."""
    with registering_as("toy-plugin"):
        spec = _spec("ToyCube")
        register_kernel(KernelConfig("ToyCube", "numpy", _cube_kernel))
    return spec


# -- identical, conflicting and overriding registrations -------------------------------------
def test_identical_reregistration_is_a_noop(cube):
    config = KernelConfig("ToyCube", "numpy", _cube_kernel)
    first = current().kernels.registration(("ToyCube", "numpy"))
    with registering_as("someone-else"):
        again = register_kernel(config)
    assert again is first
    assert len(current().kernels.stacks[("ToyCube", "numpy")]) == 1
    assert current().kernels.registration(("ToyCube", "numpy")).source == "toy-plugin"
    assert register_kernel_spec(cube) is cube
    grad = GradConfig("ToyCube", _grad_times(3.0))
    assert register_gradient(grad) is register_gradient(grad)
    assert len(current().gradients.stacks["ToyCube"]) == 1


def test_a_different_kernel_for_a_taken_slot_names_both_registrants(cube):
    with registering_as("other-plugin"), pytest.raises(
        tp.RegistrationError,
        match=r"Kernel 'ToyCube' for backend 'numpy' is already registered by 'toy-plugin'; "
              r"'other-plugin' registers a different one\. Pass override=True",
    ):
        register_kernel(KernelConfig("ToyCube", "numpy", _other_cube_kernel))
    assert get_kernel("ToyCube", "numpy").kernel_func is _cube_kernel


def test_a_different_kernel_for_a_plugin_slot_names_the_plugin():
    tp.exp(1.0)  # starts the numpy backend: its kernels are registered
    with pytest.raises(tp.RegistrationError, match=rf"already registered by '{NUMPY_PLUGIN}'; "
                       rf"'{USER_SOURCE}' registers a different one"):
        register_kernel(KernelConfig("Exp", "numpy", _cube_kernel))


def test_different_gradient_for_a_taken_slot_names_both(cube):
    with registering_as(CORE_SOURCE):
        register_gradient(GradConfig("ToyCube", _grad_times(3.0)))
    with registering_as("grad-plugin"), pytest.raises(
        tp.RegistrationError,
        match=rf"Gradient of kernel 'ToyCube' is already registered by '{CORE_SOURCE}'; "
              r"'grad-plugin' registers a different one",
    ):
        register_gradient(GradConfig("ToyCube", _grad_times(5.0)))


def test_different_spec_and_backend_and_op_for_taken_slots_are_refused(cube):
    with pytest.raises(tp.RegistrationError,
                       match=r"Kernel spec 'ToyCube' is already registered by 'toy-plugin'"):
        _spec("ToyCube", doc="another one")
    with pytest.raises(tp.RegistrationError,
                       match=rf"Backend 'numpy' is already registered by '{NUMPY_PLUGIN}'"):
        register_backend(BackendConfig("numpy", ToyBackend, priority=1))
    with registering_as("op-plugin-a"):
        register_op(OpConfig("toy_cube", lambda x: x))
    with registering_as("op-plugin-b"), pytest.raises(
            tp.RegistrationError,
            match=r"Op 'toy_cube' is already registered by 'op-plugin-a'; 'op-plugin-b'"):
        register_op(OpConfig("toy_cube", lambda x: x * 1))


def test_override_replaces_and_unregister_restores_the_one_beneath(cube):
    with registering_as(CORE_SOURCE):
        register_gradient(GradConfig("ToyCube", _grad_times(3.0)))
    with registering_as("grad-plugin"):
        register_gradient(GradConfig("ToyCube", _grad_times(5.0)), override=True)
    assert current().gradients.registration("ToyCube").source == "grad-plugin"
    assert _constant_grad_value() == 5.0
    unregister_gradient("ToyCube")
    assert current().gradients.registration("ToyCube").source == CORE_SOURCE
    assert _constant_grad_value() == 3.0

    with registering_as("kernel-plugin"):
        register_kernel(KernelConfig("ToyCube", "numpy", lambda i, a, b: i[0] * 0 + 7), override=True)
    assert tp.run_kernel("ToyCube", {"x": 2.0}).item() == 7
    unregister_kernel("ToyCube", "numpy")
    assert tp.run_kernel("ToyCube", {"x": 2.0}).item() == 8


def test_override_of_the_core_gradient_and_unregister_restore_it():
    x = 1.0
    core = find_gradient("Exp")
    assert core is not None and current().gradients.registration("Exp").source == CORE_SOURCE
    assert tp.grad(tp.exp)(x).item() == pytest.approx(math.e)
    with registering_as("grad-plugin"):
        register_gradient(GradConfig("Exp", _grad_times(-1.0)), override=True)
    assert tp.grad(tp.exp)(x).item() == -1.0
    unregister_gradient("Exp", source="grad-plugin")
    assert find_gradient("Exp") is core
    assert tp.grad(tp.exp)(x).item() == pytest.approx(math.e)


def test_unregister_by_source_removes_that_one_even_when_beneath(cube):
    with registering_as(CORE_SOURCE):
        register_gradient(GradConfig("ToyCube", _grad_times(3.0)))
    with registering_as("grad-plugin"):
        register_gradient(GradConfig("ToyCube", _grad_times(5.0)), override=True)
    unregister_gradient("ToyCube", source=CORE_SOURCE)
    assert _constant_grad_value() == 5.0
    unregister_gradient("ToyCube")
    assert find_gradient("ToyCube") is None


def test_unregistering_what_is_not_there_is_a_clear_error(cube):
    with pytest.raises(tp.RegistrationError,
                       match=r"Kernel 'ToyCube' for backend 'toy' is not registered; nothing to remove"):
        unregister_kernel("ToyCube", "toy")
    with pytest.raises(tp.RegistrationError,
                       match=r"has no registration by 'nobody' \(registered by 'toy-plugin'\)"):
        unregister_kernel("ToyCube", "numpy", source="nobody")
    with pytest.raises(tp.RegistrationError, match=r"Gradient of kernel 'ToyCube' is not registered"):
        unregister_gradient("ToyCube")
    with pytest.raises(tp.RegistrationError, match=r"Op 'no_such_op' is not registered"):
        unregister_op("no_such_op")


# -- priorities ------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["low first", "high first"])
def test_a_higher_priority_override_wins_in_either_order(cube, order):
    low = GradConfig("ToyCube", _grad_times(1.0))
    high = GradConfig("ToyCube", _grad_times(2.0))
    regs = [(low, 0, False, "low-plugin"), (high, 5, True, "high-plugin")]
    for config, priority, override, source in (regs if order == "low first" else regs[::-1]):
        with registering_as(source):
            register_gradient(config, priority=priority, override=override)
    assert find_gradient("ToyCube") is high
    assert _constant_grad_value() == 2.0
    unregister_gradient("ToyCube")  # the active, high-priority one
    assert find_gradient("ToyCube") is low
    assert current().gradients.registration("ToyCube").source == "low-plugin"


def test_a_priority_alone_does_not_replace_another_sources_registration(cube):
    """override=True is what replaces another's entry, whatever the priority (issue 17: a
    plugin's priority=5 silently replaced a backend's Add)."""
    low = GradConfig("ToyCube", _grad_times(1.0))
    with registering_as("low-plugin"):
        register_gradient(low)
    with registering_as("high-plugin"), pytest.raises(
            tp.RegistrationError, match=r"Gradient of kernel 'ToyCube' is already registered by "
            r"'low-plugin'; 'high-plugin' registers a different one\. Pass override=True"):
        register_gradient(GradConfig("ToyCube", _grad_times(2.0)), priority=5)
    assert find_gradient("ToyCube") is low
    with registering_as("beneath-plugin"), pytest.raises(  # nor beneath it: order would decide
            tp.RegistrationError, match=r"already registered by 'low-plugin'; 'beneath-plugin' "
            r"registers a different one\. Pass override=True to replace it \(a priority alone"):
        register_gradient(GradConfig("ToyCube", _grad_times(3.0)), priority=-1)
    assert find_gradient("ToyCube") is low


def test_kernel_priority_and_override_at_the_same_priority(cube):
    hi = KernelConfig("ToyCube", "numpy", lambda i, a, b: i[0] * 0 + 1)
    register_kernel(hi, priority=2, override=True)
    assert get_kernel("ToyCube", "numpy") is hi
    lower = KernelConfig("ToyCube", "numpy", lambda i, a, b: i[0] * 0 + 2)
    register_kernel(lower, priority=1, override=True)  # beneath, no error
    assert get_kernel("ToyCube", "numpy") is hi
    with pytest.raises(tp.RegistrationError, match="already registered"):
        register_kernel(KernelConfig("ToyCube", "numpy", lambda i, a, b: i[0]), priority=2)
    unregister_kernel("ToyCube", "numpy")
    assert get_kernel("ToyCube", "numpy") is lower
    unregister_kernel("ToyCube", "numpy")
    assert get_kernel("ToyCube", "numpy").kernel_func is _cube_kernel


# -- what registrations are checked for ------------------------------------------------------
def test_kernel_for_an_unknown_kernel_name_suggests_close_names():
    with pytest.raises(KernelSpecNotFoundError,
                       match=r"No kernel spec named 'Exq'\. Did you mean 'Exp'.*register_kernel_spec"):
        register_kernel(KernelConfig("Exq", "numpy", _cube_kernel))
    with pytest.raises(KernelSpecNotFoundError, match=r"No kernel spec named 'Tanhh'\. Did you mean 'Tanh'"):
        register_gradient(GradConfig("Tanhh", _grad_times(1.0)))
    with pytest.raises(LookupError, match=r"No kernel spec named 'Matmul'\. Did you mean 'MatMul'"):
        get_kernel_spec("Matmul")


def test_gradient_for_a_non_differentiable_spec_is_refused():
    with pytest.raises(tp.RegistrationError,
                       match=r"Kernel spec 'LogicalNot' is declared not differentiable"):
        register_gradient(GradConfig("LogicalNot", _grad_times(1.0)))
    with pytest.raises(tp.RegistrationError, match=r"'Equal' is declared not differentiable"):
        override_gradient(GradConfig("Equal", _grad_times(1.0))).__enter__()
    with pytest.raises(tp.GradientNotFoundError,
                       match=r"No gradient for kernel 'LogicalNot': its spec says it is not differentiable"):
        get_gradient("LogicalNot")


def test_gradconfig_saving_unknown_names_is_refused(cube):
    with pytest.raises(tp.RegistrationError, match=r"GradConfig for 'ToyCube' saves unknown names "
                       r"\['z', 'y'\]; the kernel's inputs are \['x'\] and outputs \['out'\]"):
        register_gradient(GradConfig("ToyCube", _grad_times(1.0), inputs_to_save=("z",),
                                     outputs_to_save=("y",)))
    register_gradient(GradConfig("ToyCube", _grad_times(1.0), inputs_to_save=("x",),
                                 outputs_to_save=("out",)))


def test_malformed_registrations_say_what_to_pass(cube):
    with pytest.raises(tp.RegistrationError, match=r"register_kernel takes a KernelConfig, got tuple"):
        register_kernel(("ToyCube", "numpy", _cube_kernel))  # type: ignore[arg-type]
    with pytest.raises(tp.RegistrationError, match=r"kernel_func must be callable, got int"):
        register_kernel(KernelConfig("ToyCube", "toy", 3))  # type: ignore[arg-type]
    with pytest.raises(tp.RegistrationError, match=r"register_gradient takes a GradConfig, got KernelConfig"):
        register_gradient(KernelConfig("ToyCube", "numpy", _cube_kernel))  # type: ignore[arg-type]
    with pytest.raises(tp.RegistrationError, match=r"grad_func must be callable"):
        register_gradient(GradConfig("ToyCube", None))  # type: ignore[arg-type]
    with pytest.raises(tp.RegistrationError,
                       match=r"op name 'not an identifier' must be a public Python identifier"):
        register_op(OpConfig("not an identifier", lambda x: x))
    with pytest.raises(tp.RegistrationError, match=r"Op 'exp' is a core op; a plugin cannot replace it"):
        register_op(OpConfig("exp", lambda x: x))


def test_get_gradient_of_a_kernel_without_one(cube):
    with pytest.raises(tp.GradientNotFoundError, match=r"No gradient for kernel 'ToyCube': none is "
                       r"registered\. Register one with tensorplug\.extend\.register_gradient"):
        get_gradient("ToyCube")


# -- scoped gradient override ----------------------------------------------------------------
def test_override_gradient_wins_inside_and_is_undone_after(cube):
    register_gradient(GradConfig("ToyCube", _grad_times(3.0)))
    scoped = GradConfig("ToyCube", _grad_times(-4.0))
    with override_gradient(scoped) as cfg:
        assert cfg is scoped and find_gradient("ToyCube") is scoped
        assert _constant_grad_value() == -4.0
        with override_gradient(GradConfig("ToyCube", _grad_times(9.0))):
            assert _constant_grad_value() == 9.0  # the innermost wins
        assert _constant_grad_value() == -4.0
    assert _constant_grad_value() == 3.0
    assert current().gradients.registration("ToyCube").source == USER_SOURCE  # nothing was registered


def test_override_gradient_is_undone_on_exceptions(cube):
    register_gradient(GradConfig("ToyCube", _grad_times(3.0)))
    with pytest.raises(RuntimeError, match="inside the block"), override_gradient(
            GradConfig("ToyCube", _grad_times(-4.0))):
        raise RuntimeError("inside the block")
    assert _constant_grad_value() == 3.0


def test_override_gradient_works_without_a_registered_gradient(cube):
    with override_gradient(GradConfig("ToyCube", _grad_times(6.0))):
        assert _constant_grad_value() == 6.0
    with pytest.raises(tp.GradientNotFoundError, match="ToyCube"):
        _constant_grad_value()


def test_override_gradient_applies_only_in_its_own_thread(cube):
    registered = GradConfig("ToyCube", _grad_times(3.0))
    register_gradient(registered)
    inside = threading.Event()
    checked = threading.Event()
    seen = {}

    def other_thread():
        inside.wait(5)
        seen["config"] = find_gradient("ToyCube")
        seen["value"] = _constant_grad_value()
        checked.set()

    worker = threading.Thread(target=other_thread)
    worker.start()
    with override_gradient(GradConfig("ToyCube", _grad_times(-4.0))):
        inside.set()
        assert checked.wait(5)
        assert _constant_grad_value() == -4.0
    worker.join()
    assert seen == {"config": registered, "value": 3.0}


def test_override_gradient_applies_when_backward_runs():
    """The gradient is looked up when backward runs: an override entered after the forward
    pass (here: inside the differentiated function, after the op) still applies."""
    def f(x):
        y = tp.exp(x)
        with override_gradient(GradConfig("Exp", _grad_times(10.0))):
            return y

    assert tp.grad(f)(0.0).item() == 1.0  # the block has closed when backward runs
    with override_gradient(GradConfig("Exp", _grad_times(10.0))):
        assert tp.grad(tp.exp)(0.0).item() == 10.0


# -- kernel setup / dispose ------------------------------------------------------------------
def _lifecycle_kernel(events: list, tag: str) -> KernelConfig:
    return KernelConfig(
        "ToyCube", "toy", _cube_kernel,
        setup_func=lambda backend: events.append(("setup", tag, backend.name)),
        dispose_func=lambda backend: events.append(("dispose", tag, backend.name)),
    )


def test_setup_runs_when_the_backend_starts_and_dispose_when_it_is_disposed(cube):
    events: list = []
    register_backend(BackendConfig("toy", ToyBackend))
    register_kernel(_lifecycle_kernel(events, "a"))
    assert events == []  # the backend has not started
    backend = tp.extend.start_backend("toy")
    assert events == [("setup", "a", "toy")]
    tp.extend.start_backend("toy")
    assert events == [("setup", "a", "toy")]  # started once
    tp.extend.dispose_backend("toy")
    assert events == [("setup", "a", "toy"), ("dispose", "a", "toy")]
    assert backend.disposed
    assert tp.extend.start_backend("toy") is not backend  # restarts on next use
    assert events[-1] == ("setup", "a", "toy")


def test_setup_runs_at_registration_on_a_started_backend_and_dispose_at_unregister(cube):
    events: list = []
    register_backend(BackendConfig("toy", ToyBackend))
    tp.extend.start_backend("toy")
    register_kernel(_lifecycle_kernel(events, "a"))
    assert events == [("setup", "a", "toy")]
    unregister_kernel("ToyCube", "toy")
    assert events == [("setup", "a", "toy"), ("dispose", "a", "toy")]


def test_an_overriding_kernel_takes_over_the_lifecycle_of_the_slot(cube):
    """Only the active kernel of a slot is set up; a kernel that stops being active (shadowed
    or unregistered) is disposed, and the one that becomes active again is set up again."""
    events: list = []
    register_backend(BackendConfig("toy", ToyBackend))
    tp.extend.start_backend("toy")
    register_kernel(_lifecycle_kernel(events, "a"))
    register_kernel(_lifecycle_kernel(events, "b"), override=True)
    assert events == [("setup", "a", "toy"), ("dispose", "a", "toy"), ("setup", "b", "toy")]
    register_kernel(_lifecycle_kernel(events, "c"), priority=-1)  # beneath: not set up
    assert events[-1] == ("setup", "b", "toy")
    unregister_kernel("ToyCube", "toy", source=USER_SOURCE)  # removes b, the active one
    assert events[3:] == [("dispose", "b", "toy"), ("setup", "a", "toy")]
    unregister_kernel("ToyCube", "toy", source=USER_SOURCE)  # a; c (beneath) takes over
    assert events[5:] == [("dispose", "a", "toy"), ("setup", "c", "toy")]
    tp.extend.dispose_backend("toy")
    assert events[7:] == [("dispose", "c", "toy")]


def test_setup_runs_once_for_kernels_a_plugin_registers_when_its_backend_starts(cube):
    events: list = []

    class Plugin:
        tensorplug_api_version = tp.API_VERSION

        @tp.extend.hookimpl
        def tensorplug_kernels(self, backend_name, register):
            if backend_name == "toy":
                register(_lifecycle_kernel(events, "plugin"))

    register_backend(BackendConfig("toy", ToyBackend))
    tp.extend.register_plugin(Plugin(), name="lifecycle-plugin")
    tp.extend.start_backend("toy")
    assert events == [("setup", "plugin", "toy")]


# -- sources and contributions ---------------------------------------------------------------
def test_every_registration_records_its_source(cube):
    assert current().kernels.registration(("ToyCube", "numpy")).source == "toy-plugin"
    register_gradient(GradConfig("ToyCube", _grad_times(1.0)))
    assert current().gradients.registration("ToyCube").source == USER_SOURCE
    with registering_as("outer"):
        with registering_as("inner"):
            register_op(OpConfig("toy_inner", lambda x: x))
        register_op(OpConfig("toy_outer", lambda x: x))
    assert current().ops.registration("toy_inner").source == "inner"
    assert current().ops.registration("toy_outer").source == "outer"
    assert current().gradients.registration("Add").source == CORE_SOURCE
    assert current().specs.registration("Add").source == CORE_SOURCE


def test_contributions_lists_what_a_source_registered(cube):
    with registering_as("toy-plugin"):
        register_gradient(GradConfig("ToyCube", _grad_times(1.0)))
        tp.extend.register_jvp(JvpConfig("ToyCube", lambda xs, ts, ys, a: 3 * xs[0] ** 2 * ts[0]))
        tp.extend.register_batching_rule(BatchConfig("ToyCube", lambda xs, bs, a: (xs[0] ** 3, bs[0])))
        register_op(OpConfig("toy_cube", lambda x: tp.run_kernel("ToyCube", {"x": x})))
        register_backend(BackendConfig("toy", ToyBackend))
    assert contributions("toy-plugin") == {
        "backends": ["toy"],
        "kernel specs": ["ToyCube"],
        "kernels": ["ToyCube/numpy"],
        "gradients": ["ToyCube"],
        "JVP rules": ["ToyCube"],
        "batching rules": ["ToyCube"],
        "ops": ["toy_cube"],
        "ONNX lowerings": [],
    }
    assert contributions("nobody") == {k: [] for k in contributions("toy-plugin")}
    tp.exp(1.0)  # numpy started: its kernels registered
    numpy_part = contributions(NUMPY_PLUGIN)
    assert numpy_part["backends"] == ["numpy"]
    assert {"Add/numpy", "Exp/numpy", "Cast/numpy"} <= set(numpy_part["kernels"])
    assert numpy_part["gradients"] == [] and numpy_part["kernel specs"] == []


# -- listing and lookups ---------------------------------------------------------------------
def test_listing_functions(cube):
    names = [s.name for s in list_kernel_specs()]
    assert names == sorted(names) and {"Add", "Exp", "ToyCube"} <= set(names)
    install_toy_backend(without=("Sin",))
    toy = {c.kernel_name for c in kernels_for_backend("toy")}
    assert "Sin" not in toy and "Add" in toy
    assert tp.extend.backends_with_kernel("Sin") == ["numpy"]
    assert tp.extend.backends_with_kernel("Add") == ["numpy", "toy"]
    register_op(OpConfig("toy_cube", lambda x: tp.run_kernel("ToyCube", {"x": x})))
    assert "toy_cube" in tp.extend.list_ops()
    assert get_op("toy_cube") is not None and get_op("nope") is None
    assert tp.ops.toy_cube(np.float32(2.0)).item() == 8.0
    with pytest.raises(AttributeError, match=r"tensorplug has no op 'toy_cub'"):
        tp.ops.toy_cub  # noqa: B018


def test_unregister_kernel_spec_and_the_specs_suggestions(cube):
    unregister_kernel_spec("ToyCube")
    with pytest.raises(KernelSpecNotFoundError, match=r"No kernel spec named 'ToyCube'"):
        get_kernel_spec("ToyCube")
