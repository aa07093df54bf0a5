"""Backends and the engine: the backend registry (priorities, lazy start, active backend,
TENSORPLUG_BACKEND), tensors moving between backends, run_kernel, and the errors the engine
raises when a kernel is missing, raises, or gets inputs its spec refuses."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorplug as tp
from _jax_absent import FIRST_PARTY_BACKENDS
from _toy_backend import TOY_SOURCE, ToyArray, ToyBackend, install_toy_backend
from _toy_dist import make_dist
from tensorplug.errors import KernelSpecNotFoundError, TensorplugPluginWarning
from tensorplug.extend import (
    Backend,
    BackendConfig,
    KernelConfig,
    backend_info,
    dispose_backend,
    register_backend,
    register_kernel,
    run_kernel,
    start_backend,
    unregister_backend,
)
from tensorplug.registry._slots import registering_as


@pytest.fixture
def toy():
    """A second backend 'toy' (priority -1, below numpy) with all numpy kernels but Sin."""
    install_toy_backend("toy", without=("Sin",))
    return start_backend("toy")


# -- the registry and the active backend -----------------------------------------------------
def test_list_backends_in_priority_order():
    register_backend(BackendConfig("toy-low", ToyBackend, priority=-3))
    register_backend(BackendConfig("toy-high", ToyBackend, priority=7))
    register_backend(BackendConfig("toy-mid", ToyBackend, priority=1))  # ties sort by name
    # the jax and torch backends (priority 0, below numpy's 1) are installed with the dev tools
    # (jax not on 3.10)
    assert tp.list_backends() == ["toy-high", "numpy", "toy-mid", *FIRST_PARTY_BACKENDS[1:], "toy-low"]
    info = {row["name"]: row for row in backend_info()}
    assert info["toy-high"] == {"name": "toy-high", "priority": 7, "started": False, "active": False,
                                "source": "user code", "dtypes": None}
    assert info["numpy"]["source"] == "tensorplug-backend-numpy"


def test_the_default_backend_is_the_highest_priority_one_that_starts():
    class Broken(Backend):
        def __init__(self):
            raise RuntimeError("no device")

    register_backend(BackendConfig("toy-broken", Broken, priority=10))
    tp.set_default_backend(None)
    tp.extend.dispose_backend("numpy")
    with pytest.warns(TensorplugPluginWarning, match=r"backend 'toy-broken' could not start, trying the "
                      r"next: Backend 'toy-broken' failed to start: RuntimeError: no device"):
        assert tp.get_backend() == "numpy"
    register_backend(BackendConfig("toy-high", ToyBackend, priority=20))
    assert tp.get_backend() == "numpy"  # this thread's backend stays until set_backend


def test_a_backend_that_fails_to_start_is_a_clear_chained_error():
    def factory():
        raise ImportError("No module named 'fancy_accelerator'")

    register_backend(BackendConfig("toy-broken", factory))
    message = (r"Backend 'toy-broken' failed to start: ImportError: No module named 'fancy_accelerator'\. "
               r"Check that its distribution and dependencies are installed")
    with pytest.raises(tp.TensorplugError, match=message) as err:
        tp.set_backend("toy-broken")
    assert isinstance(err.value.__cause__, ImportError)
    register_backend(BackendConfig("toy-bad", lambda: object()))
    with pytest.raises(tp.TensorplugError, match=r"Backend 'toy-bad': its factory returned object, not a "
                       r"tensorplug Backend subclass"):
        start_backend("toy-bad")


def test_set_and_get_backend(toy):
    assert tp.get_backend() == "numpy"
    returned = tp.set_backend("toy")
    assert returned is toy and tp.get_backend() == "toy"
    x = tp.asarray([1.0, 2.0])
    assert x.backend == "toy" and isinstance(x.native, ToyArray)
    assert (x + 1.0).backend == "toy"
    tp.set_backend("numpy")
    assert tp.get_backend() == "numpy" and tp.asarray(1.0).backend == "numpy"
    installed = re.escape(str([*FIRST_PARTY_BACKENDS, "toy"]))
    with pytest.raises(tp.BackendNotFoundError, match=r"No backend named 'nope'; registered backends: "
                       rf"{installed}\. Install its distribution \(e\.g\. pip install "
                       r"tensorplug-backend-nope"):
        tp.set_backend("nope")
    with pytest.raises(tp.BackendNotFoundError, match=r"No backend named 'numpi'.*Did you mean 'numpy'\?"):
        tp.set_backend("numpi")
    assert tp.get_backend() == "numpy"


def test_backend_scope_restores_the_previous_backend_also_on_exceptions(toy):
    with tp.backend_scope("toy") as backend:
        assert backend is toy and tp.get_backend() == "toy"
        with tp.backend_scope("numpy"):
            assert tp.get_backend() == "numpy"
        assert tp.get_backend() == "toy"
    assert tp.get_backend() == "numpy"
    with pytest.raises(ZeroDivisionError), tp.backend_scope("toy"):
        _ = 1 / 0
    assert tp.get_backend() == "numpy"


def test_set_default_backend_applies_to_threads_without_a_backend(toy):
    import threading

    assert tp.get_backend() == "numpy"  # this thread has chosen its backend
    tp.set_default_backend("toy")
    seen = []
    worker = threading.Thread(target=lambda: seen.append((tp.get_backend(), tp.asarray(1.0).backend)))
    worker.start()
    worker.join()
    assert seen == [("toy", "toy")]
    assert tp.get_backend() == "numpy"  # and keeps it


def test_dispose_and_unregister_backend(toy):
    tp.set_backend("toy")
    dispose_backend("toy")
    assert toy.disposed
    assert tp.get_backend() == "numpy"  # the disposed backend is no longer this thread's
    again = start_backend("toy")
    assert again is not toy and not again.disposed
    unregister_backend("toy")
    assert again.disposed
    assert "toy" not in tp.list_backends()
    with pytest.raises(tp.BackendNotFoundError, match="No backend named 'toy'"):
        start_backend("toy")


def test_unregistering_an_overriding_backend_disposes_its_instance(toy):
    class Other(ToyBackend):
        pass

    register_backend(BackendConfig("toy", Other, priority=-1), override=True)
    started = start_backend("toy")
    assert type(started) is ToyBackend  # started before the override: stays until disposed
    dispose_backend("toy")
    other = start_backend("toy")
    assert type(other) is Other
    unregister_backend("toy", source="user code")  # the override goes; the toy config returns
    assert other.disposed
    assert type(start_backend("toy")) is ToyBackend


def test_env_var_chooses_the_default_backend(tmp_path):
    toy = make_dist(tmp_path, """
        import tensorplug_numpy

        class EnvBackend(tensorplug_numpy.NumpyBackend):
            pass

        @hookimpl
        def tensorplug_backends(register):
            register(BackendConfig("toyenv", EnvBackend, priority=-10))

        @hookimpl
        def tensorplug_kernels(backend_name, register):
            if backend_name == "toyenv":
                from tensorplug_numpy import kernels
                for config in kernels.all_kernels("toyenv"):
                    register(config)
    """, name="envbackend")
    code = ("import tensorplug as tp; "
            "print(tp.get_backend(), (tp.asarray([1.0]) + 1.0).backend, tp.list_backends())")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env["PYTHONPATH"] = str(tmp_path)

    def run(**extra):
        return subprocess.run([sys.executable, "-c", code], env={**env, **extra}, capture_output=True,
                              text=True)

    plain = run()
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split()[:2] == ["numpy", "numpy"]
    chosen = run(TENSORPLUG_BACKEND="toyenv")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.split()[:2] == ["toyenv", "toyenv"]
    wrong = run(TENSORPLUG_BACKEND="nope")
    assert wrong.returncode != 0
    assert ("BackendNotFoundError: No backend named 'nope'; registered backends: "
            f"{[*FIRST_PARTY_BACKENDS, 'toyenv']}" in wrong.stderr)
    assert toy.module not in sys.modules


# -- tensors on several backends -------------------------------------------------------------
def test_tensors_move_implicitly_to_the_active_backend(toy):
    a = tp.asarray([1.0, 2.0])
    with tp.backend_scope("toy"):
        b = tp.asarray([10.0, 20.0])
        c = a + b
        assert c.backend == "toy" and c.tolist() == [11.0, 22.0]
        assert a.backend == "numpy"  # the operand itself is unchanged
        assert toy.calls["Add"] == 1
    d = b * a  # back on numpy: b moves
    assert d.backend == "numpy" and d.tolist() == [10.0, 40.0]
    moved = a.to("toy")
    assert moved.backend == "toy" and isinstance(moved.native, ToyArray) and moved.tolist() == [1.0, 2.0]
    assert tp.asarray(moved, backend="numpy").backend == "numpy"


def test_gradients_flow_across_backends(toy):
    w = tp.asarray(3.0)

    def f(x):
        with tp.backend_scope("toy"):
            y = x * w
        return y * x  # back on numpy

    g = tp.grad(f)(tp.asarray(2.0).to("toy"))
    assert g.item() == pytest.approx(12.0)


@pytest.mark.parametrize("name", FIRST_PARTY_BACKENDS)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1, 3)])
def test_ndim_of_is_the_length_of_shape_of_on_every_backend(name, shape):
    backend = start_backend(name)
    x = tp.asarray(np.zeros(shape, np.float32), backend=name)
    assert backend.ndim_of(x.native) == len(backend.shape_of(x.native)) == len(shape) == x.ndim


def test_a_backend_that_says_only_shape_of_gets_ndim_of_from_it(toy):
    x = tp.asarray(np.ones((2, 3)), backend="toy")
    assert "ndim_of" not in vars(ToyBackend) and toy.ndim_of(x.native) == 2 == x.ndim
    with tp.backend_scope("toy"):
        assert tp.matmul(x, x.T).shape == (2, 2) and tp.matmul(x[0], x.T).shape == (2,)


# -- kernel lookup and failures --------------------------------------------------------------
def test_a_missing_kernel_names_kernel_backend_and_the_backends_that_have_it(toy):
    with tp.backend_scope("toy"):
        with pytest.raises(tp.KernelNotFoundError, match=r"Kernel 'Sin' is not registered for backend 'toy'; "
                           r"it is registered for 'numpy'\. Install a plugin that provides it, or call "
                           r"tp\.set_backend\('numpy'\)\."):
            tp.sin(tp.asarray([1.0]))
        with pytest.raises(LookupError, match=r"Kernel 'Sin' is not registered for backend 'toy'"):
            run_kernel("Sin", {"x": 1.0})


def test_a_kernel_no_backend_has():
    tp.extend.register_kernel_spec(tp.extend.KernelSpec("ToyNowhere", ("x",), lambda i, a: [i[0]]))
    with pytest.raises(tp.KernelNotFoundError, match=r"Kernel 'ToyNowhere' is not registered for backend "
                       r"'numpy'; no installed backend provides it\. Install a plugin that provides it, "
                       r"or register one with tensorplug\.extend\.register_kernel"):
        run_kernel("ToyNowhere", {"x": 1.0})


def test_a_kernel_only_a_backend_not_started_yet_provides_is_named_with_it():
    """Issue 18: 'no backend has it' was wrong when the backend that has it had not started;
    its plugin is asked which kernels it would register, and the backend stays unstarted."""
    import types

    from tensorplug.core.runtime import current
    from tensorplug.extend import BackendConfig, KernelConfig, KernelSpec, hookimpl, register_plugin

    plugin = types.SimpleNamespace(tensorplug_api_version=tp.extend.API_VERSION)

    @hookimpl
    def tensorplug_kernel_specs(register):
        register(KernelSpec("ToyRare", ("x",), lambda infos, attrs: [infos[0]]))

    @hookimpl
    def tensorplug_backends(register):
        register(BackendConfig("toyrare", ToyBackend, priority=-9))

    @hookimpl
    def tensorplug_kernels(backend_name, register):
        if backend_name == "toyrare":
            register(KernelConfig("ToyRare", "toyrare", lambda inputs, attrs, backend: inputs[0]))

    plugin.tensorplug_kernel_specs = tensorplug_kernel_specs
    plugin.tensorplug_backends = tensorplug_backends
    plugin.tensorplug_kernels = tensorplug_kernels
    register_plugin(plugin, name="rare-plugin")
    with tp.backend_scope("numpy"), pytest.raises(
            tp.KernelNotFoundError, match=r"Kernel 'ToyRare' is not registered for backend 'numpy'; the "
            r"installed backend\(s\) 'toyrare' provide it \(not started yet\)\. Call "
            r"tp\.set_backend\('toyrare'\)"):
        run_kernel("ToyRare", {"x": 1.0})
    assert "toyrare" not in current().instances


def test_a_kernel_that_raises_on_valid_input_is_a_kernel_error_naming_its_registrant(toy):
    def buggy_exp(inputs, attrs, backend):
        raise RuntimeError("kaboom inside the kernel")

    with registering_as("buggy-plugin"):
        register_kernel(KernelConfig("Exp", "toy", buggy_exp), override=True)
    with tp.backend_scope("toy"):
        x = tp.asarray([[1.0, 2.0, 3.0]])
        message = (r"Kernel 'Exp' on backend 'toy' \(inputs x: float32\[1, 3\]\) raised RuntimeError: kaboom "
                   r"inside the kernel\. The inputs satisfy the kernel spec, so this is a bug in the kernel "
                   r"registered by 'buggy-plugin'")
        with pytest.raises(tp.KernelError, match=message) as err:
            tp.exp(x)
    assert isinstance(err.value.__cause__, RuntimeError)
    assert isinstance(err.value, RuntimeError)


def test_a_kernel_returning_garbage_is_a_kernel_error(toy):
    register_kernel(KernelConfig("Exp", "toy", lambda i, a, b: np.exp(i[0].array)), override=True)
    message = (r"Kernel 'Exp' on backend 'toy' \(registered by 'user code'\): its kernel function returned "
               r"a numpy.ndarray as output 'out' .*the kernel spec says a native array of backend 'toy'")
    with tp.backend_scope("toy"), pytest.raises(tp.KernelOutputError, match=message):
        tp.exp(tp.asarray([1.0]))


def test_invalid_shapes_are_explained_from_the_spec_and_chained():
    x, y = tp.asarray([1.0, 2.0]), tp.asarray([1.0, 2.0, 3.0])
    with pytest.raises(tp.ShapeError, match=r"Kernel 'Add' on backend 'numpy' \(inputs x: float32\[2\], "
                       r"y: float32\[3\]\): shapes \(2,\), \(3,\) cannot be broadcast together") as err:
        x + y
    assert isinstance(err.value.__cause__, ValueError)  # numpy's own error
    assert isinstance(err.value, ValueError)


def _strict_divide(inputs, attrs, backend):
    x, y = (a.array for a in inputs)
    if x.dtype.kind != "f":
        raise TypeError(f"ufunc 'divide' not supported for {x.dtype}")
    return ToyArray(x / y)


def test_invalid_dtypes_are_explained_from_the_spec_and_chained(toy):
    """Ops hand kernels valid inputs; the fast path they use checks nothing while the kernel
    succeeds, and explains the failure from the spec when it raises."""
    from tensorplug.families._common.convert import caller

    with registering_as(TOY_SOURCE):
        register_kernel(KernelConfig("Divide", "toy", _strict_divide), override=True)
    with tp.backend_scope("toy"):
        x = tp.asarray([1, 2])
        with pytest.raises(tp.DTypeError, match=r"Kernel 'Divide' on backend 'toy' \(inputs x: int64\[2\], "
                           r"y: int64\[2\]\): kernel 'Divide' input 'x' must have dtype float32 or float64 "
                           r"or float16 or bfloat16 or complex64 or complex128; got int64") as err:
            caller("Divide")((x, x), {})
    assert isinstance(err.value.__cause__, TypeError)
    assert isinstance(err.value, TypeError)


def test_run_kernel_checks_inputs_against_the_spec_before_the_kernel_runs(toy):
    with tp.backend_scope("toy"):
        with pytest.raises(tp.DTypeError, match=r"Kernel 'Divide' on backend 'toy' \(inputs x: int64\[2\], "
                           r"y: int64\[2\]\): kernel 'Divide' input 'x' must have dtype float32 or float64 "
                           r"or float16 or bfloat16 or complex64 or complex128; got int64"):
            run_kernel("Divide", {"x": [1, 2], "y": [3, 4]})
        with pytest.raises(tp.DTypeError, match=r"kernel 'Add' needs inputs \['x', 'y'\] to share one dtype; "
                           r"got x: float32, y: int64"):
            run_kernel("Add", {"x": [1.0], "y": [1]})
        with pytest.raises(tp.ShapeError, match=r"Kernel 'Add' on backend 'toy' \(inputs x: float32\[2\], "
                           r"y: float32\[3\]\): shapes \(2,\), \(3,\) cannot be broadcast"):
            run_kernel("Add", {"x": [1.0, 2.0], "y": [1.0, 2.0, 3.0]})
    assert toy.calls == {}  # no kernel ran


# -- run_kernel ------------------------------------------------------------------------------
def test_run_kernel_with_dict_and_sequence_inputs():
    x = tp.asarray([1.0, 2.0])
    assert run_kernel("Add", {"x": x, "y": [10.0, 20.0]}).tolist() == [11.0, 22.0]
    assert run_kernel("Subtract", {"y": x, "x": [10.0, 20.0]}).tolist() == [9.0, 18.0]  # by name
    assert run_kernel("Subtract", ([10.0, 20.0], x)).tolist() == [9.0, 18.0]  # spec order
    assert tp.run_kernel("Cast", {"x": x}, {"dtype": tp.int32}).dtype is tp.int32
    assert run_kernel("Clip", {"x": [-1.0, 0.5, 3.0]}, {"max": 1.0}).tolist() == [-1.0, 0.5, 1.0]
    assert tp.grad(lambda v: run_kernel("Multiply", {"x": v, "y": v}))(3.0).item() == 6.0


def test_run_kernel_refuses_unknown_and_missing_inputs():
    with pytest.raises(tp.ShapeError, match=r"run_kernel\('Add'\): unknown input\(s\) \['z'\]; the kernel "
                       r"takes \['x', 'y'\]"):
        run_kernel("Add", {"x": 1.0, "y": 2.0, "z": 3.0})
    with pytest.raises(tp.ShapeError, match=r"run_kernel\('Add'\): missing input\(s\) \['y'\]; the kernel "
                       r"takes \['x', 'y'\]"):
        run_kernel("Add", {"x": 1.0})
    with pytest.raises(tp.ShapeError, match=r"kernel 'Add' takes 2 input\(s\) \['x', 'y'\], got 3"):
        run_kernel("Add", (1.0, 2.0, 3.0))
    with pytest.raises(KernelSpecNotFoundError, match=r"No kernel spec named 'add'\. Did you mean 'Add'"):
        run_kernel("add", {"x": 1.0, "y": 2.0})


def test_run_kernel_checks_attributes():
    with pytest.raises(tp.ShapeError, match=r"kernel 'Clip' has no attribute\(s\) \['lo'\]; its attributes "
                       r"are \['max', 'min'\]"):
        run_kernel("Clip", {"x": 1.0}, {"lo": 0.0})
    with pytest.raises(tp.ShapeError, match=r"kernel 'Cast' needs the attribute 'dtype' \(the target "
                       r"dtype\); pass it in attrs"):
        run_kernel("Cast", {"x": 1.0})
    with pytest.raises(tp.ShapeError,
                       match=r"kernel 'Clip': attribute 'min'='low' is invalid: could not convert"):
        run_kernel("Clip", {"x": 1.0}, {"min": "low"})


def test_a_failing_kernel_with_attributes_its_spec_refuses_is_explained_with_the_attrs():
    def raising_clip(inputs, attrs, backend):
        raise ValueError("clip bounds are crossed")

    from tensorplug.families._common.convert import caller

    register_kernel(KernelConfig("Clip", "numpy", raising_clip), override=True)
    message = (r"Kernel 'Clip' on backend 'numpy' \(inputs x: float32\[\], attrs \{'min': 2\.0, "
               r"'max': 1\.0\}\): min \(2\.0\) is greater than max \(1\.0\)")
    with pytest.raises(tp.ShapeError, match=message) as err:
        caller("Clip")((tp.asarray(1.0),), {"min": 2.0, "max": 1.0})
    assert str(err.value.__cause__) == "clip bounds are crossed"
    with pytest.raises(tp.ShapeError, match=message):  # checked before the kernel runs
        run_kernel("Clip", {"x": 1.0}, {"min": 2.0, "max": 1.0})


def test_run_kernel_records_for_autodiff_and_dispatches_on_the_active_backend(toy):
    with tp.backend_scope("toy"):
        y = run_kernel("Multiply", {"x": 2.0, "y": 3.0})
    assert y.backend == "toy" and toy.calls["Multiply"] == 1


@pytest.mark.parametrize("asked", ["jax", "numpy"])
def test_with_no_backend_installed_the_hint_names_the_backend_asked_for(asked):
    """TENSORPLUG_BACKEND=jax in an environment with no backend: the error says to install
    tensorplug-backend-jax (the numpy backend would not give the user jax)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env.update(TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD="1", TENSORPLUG_BACKEND=asked)
    run = subprocess.run([sys.executable, "-c", "import tensorplug as tp; tp.asarray([1.0])"],
                         env=env, capture_output=True, text=True)
    assert run.returncode != 0
    error = run.stderr.strip().splitlines()[-1]
    assert error.startswith("tensorplug.errors.BackendNotFoundError: No backend named"), error
    assert f"pip install tensorplug-backend-{asked}" in error
    other = {"jax": "numpy", "numpy": "jax"}[asked]
    assert f"tensorplug-backend-{other}" not in error
