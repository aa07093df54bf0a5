"""A kernel is held to its spec: the dispatcher checks what a kernel returned (how many outputs,
native arrays of its backend, their dtypes and shapes) on the first call of each binding and
input dtypes, ``tp.debug_checks()`` on every call, the conformance kit on every case. A wrong
output is a KernelOutputError naming the kernel, its backend, who registered it, what came
back, what the spec says and how to fix it; without the check, a (3, 1) where the spec says (3,)
would broadcast silently into a wrong (3, 3) at the next op."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.core.context import recorders_var
from tensorplug.extend import (
    DirectCall,
    Dispatcher,
    KernelConfig,
    KernelSpec,
    register_kernel,
    register_kernel_spec,
    start_backend,
)
from tensorplug.registry._slots import registering_as
from tensorplug.testing import opcheck
from tensorplug.tools.check_recorders import OutputCheck, checks_from_environment

SOURCE = "wrong-outputs (tests)"
OTHER = {"numpy": "jax", "jax": "numpy"}
BACKENDS = ["numpy", "jax"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The backend of the test, active, with the specs Same (x -> x's shape and dtype) and Two
    (x -> a and b, both as x) declared."""
    if request.param == "jax":
        pytest.importorskip("jax")
    with tp.backend_scope(request.param):
        register_kernel_spec(KernelSpec("Same", ("x",), lambda infos, attrs: [infos[0]],
                                        input_dtypes={"x": (tp.float32, tp.float64)}))
        register_kernel_spec(KernelSpec("Two", ("x",), lambda infos, attrs: [infos[0], infos[0]],
                                        outputs=("a", "b")))
        yield start_backend(request.param)


def _register(name: str, backend: Any, kernel: Callable[..., Any],
              direct: Callable[..., Any] | None = None) -> None:
    """`kernel` (and `direct` as its direct function for float32) for kernel `name`, registered
    as a plugin would."""
    call = None if direct is None else DirectCall((tp.float32,), direct)
    with registering_as(SOURCE):
        register_kernel(KernelConfig(name, backend.name, kernel, direct=call))


def _native(backend: Any, shape: tuple[int, ...], dtype: Any = np.float32) -> Any:
    return backend.from_numpy(np.zeros(shape, dtype))


# what a broken kernel returns for x: float32[3]; what the error says came back and was due
ARRAY = r"a native array of backend '(numpy|jax)' \(float32\[3\]\)"
WRONG: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "shape (2,)": (lambda b: _native(b, (2,)), r"float32\[2\] as output 'out'", r"float32\[3\]"),
    "shape (3, 1)": (lambda b: _native(b, (3, 1)), r"float32\[3, 1\] as output 'out'", r"float32\[3\]"),
    "float64 for float32": (lambda b: _native(b, (3,), np.float64), r"float64\[3\] as output 'out'",
                            r"float32\[3\]"),
    "another backend's array": (lambda b: tp.asarray(np.zeros(3, np.float32), backend=OTHER[b.name])._data,
                                r"a (numpy\.ndarray|jax\S+) \(float32\[3\]\) as output 'out'", ARRAY),
    "a Python scalar": (lambda b: 3.0, r"a float \(3\.0\) as output 'out'", ARRAY),
    "a list": (lambda b: [0.0, 0.0, 0.0], "a list of 3",
               r"one native array \(float32\[3\]\) for its one output 'out'"),
    "None": (lambda b: None, "None as output 'out'", ARRAY),
    "a string": (lambda b: "out", r"a str \('out'\) as output 'out'", ARRAY),
}


def _message(got: str, want: str, function: str = "kernel function", backend: str = "(numpy|jax)") -> str:
    return (rf"^Kernel 'Same' on backend '{backend}' \(registered by 'wrong-outputs \(tests\)'\): its "
            rf"{function}( \(its KernelConfig's DirectCall\))? returned {got} from inputs x: float32\[3\]; "
            rf"the kernel spec says {want}\. A kernel must return what its spec's rule gives: fix the "
            r"kernel in 'wrong-outputs \(tests\)' \(or report it there\), or register another kernel with "
            r"override=True\.$")


@pytest.mark.parametrize("wrong", sorted(WRONG))
@pytest.mark.parametrize("call", ["unary", "__call__", "run_kernel"])
def test_a_kernel_function_returning_the_wrong_thing_is_named_on_its_first_call(backend, wrong, call):
    make, got, want = WRONG[wrong]
    _register("Same", backend, lambda inputs, attrs, b: make(b))
    x = tp.ones((3,))
    run = {"unary": Dispatcher("Same").unary, "__call__": lambda x: Dispatcher("Same")((x,)),
           "run_kernel": lambda x: tp.run_kernel("Same", {"x": x})}[call]
    with pytest.raises(tp.KernelOutputError, match=_message(got, want, backend=backend.name)) as caught:
        run(x)
    assert isinstance(caught.value, tp.KernelError)


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_a_direct_function_returning_the_wrong_thing_is_named_on_its_first_call(backend, wrong):
    make, got, want = WRONG[wrong]
    x = tp.ones((3,))
    _register("Same", backend, lambda inputs, attrs, b: inputs[0], direct=lambda x: make(backend))
    with pytest.raises(tp.KernelOutputError, match=_message(got, want, "direct function", backend.name)):
        Dispatcher("Same").unary(x)


def test_binary_calls_are_checked_too(backend):
    register_kernel_spec(KernelSpec("Pair", ("x", "y"), lambda infos, attrs: [infos[0]]))
    _register("Pair", backend, lambda inputs, attrs, b: inputs[0],
              direct=lambda x, y: _native(backend, (3, 1)))
    with pytest.raises(tp.KernelOutputError, match=r"Kernel 'Pair' .* returned float32\[3, 1\] as output "
                       r"'out' from inputs x: float32\[3\], y: float32\[3\]; the kernel spec says "
                       r"float32\[3\]"):
        Dispatcher("Pair").binary(tp.ones((3,)), tp.ones((3,)))


@pytest.mark.parametrize("returns, got, want", [
    (lambda x, b: x, r"a (numpy\.ndarray|jax\S+) \(float32\[3\]\)",
     r"a tuple of 2 native arrays for its outputs \['a', 'b'\]"),
    (lambda x, b: (x, x, x), "a tuple of 3", r"2 outputs \['a', 'b'\]"),
    (lambda x, b: (x, _native(b, (3,), np.float64)), r"float64\[3\] as output 'b'", r"float32\[3\]"),
], ids=["one array", "three", "a wrong second"])
def test_a_kernel_of_several_outputs_returns_as_many_as_its_spec_says(backend, returns, got, want):
    _register("Two", backend, lambda inputs, attrs, b: returns(inputs[0], b))
    with pytest.raises(tp.KernelOutputError, match=rf"Kernel 'Two' on backend '{backend.name}' .* returned "
                       rf"{got} from inputs x: float32\[3\]; the kernel spec says {want}\."):
        Dispatcher("Two")((tp.ones((3,)),))


def _wrong_on_second_call(backend: Any) -> Callable[..., Any]:
    calls: list[int] = []

    def kernel(*arrays: Any) -> Any:
        calls.append(1)
        return arrays[0] if len(calls) == 1 else _native(backend, (3, 1))

    return kernel


@pytest.mark.parametrize("path", ["kernel function", "direct function"])
def test_debug_checks_catch_a_kernel_wrong_only_on_its_second_call(backend, path):
    wrong = _wrong_on_second_call(backend)
    if path == "kernel function":
        _register("Same", backend, lambda inputs, attrs, b: wrong(*inputs))
    else:
        _register("Same", backend, lambda inputs, attrs, b: inputs[0], direct=wrong)
    same = Dispatcher("Same").unary
    x = tp.ones((3,))
    assert same(x).shape == (3,)  # the first call of float32 inputs: checked, and right
    assert same(x).shape == (3, 1)  # later calls are not checked (the hot path stays as it was)...
    wrong_shape = _message(r"float32\[3, 1\] as output 'out'", r"float32\[3\]", path)
    with tp.debug_checks(), pytest.raises(tp.KernelOutputError, match=wrong_shape):
        same(x)  # ...unless debug checks are on
    assert not any(isinstance(r, OutputCheck) for r in recorders_var.get())


def test_debug_checks_take_a_tuple_of_one_from_a_kernel_of_as_many_outputs_as_its_attributes_say(backend):
    x = tp.reshape(tp.arange(8.0), (4, 2))
    with tp.debug_checks():
        (whole,) = tp.split(x, 1)  # SplitV into one piece: a tuple of one array
        a, b = tp.split(x, 2)
    assert whole.shape == (4, 2) and a.shape == b.shape == (2, 2)


def test_each_new_input_dtype_is_checked_on_its_first_call(backend):
    def kernel(inputs, attrs, b):
        x = inputs[0]
        return x if b.dtype_of(x) is tp.float32 else _native(b, (3,), np.float32)

    _register("Same", backend, kernel)
    same = Dispatcher("Same").unary
    assert same(tp.ones((3,))).dtype is tp.float32
    with pytest.raises(tp.KernelOutputError, match=r"returned float32\[3\] as output 'out' from inputs x: "
                       r"float64\[3\]; the kernel spec says float64\[3\]"):
        same(tp.ones((3,), dtype=tp.float64))


def test_the_environment_variable_turns_debug_checks_on_for_every_context(monkeypatch):
    monkeypatch.setenv("TENSORPLUG_DEBUG_CHECKS", "1")
    assert any(isinstance(c, OutputCheck) for c in checks_from_environment())
    monkeypatch.setenv("TENSORPLUG_DEBUG_CHECKS", "0")
    assert not any(isinstance(c, OutputCheck) for c in checks_from_environment())


def test_the_conformance_kit_reports_a_kernel_wrong_on_some_cases_only(backend):
    """Another backend's array for empty inputs only: the kit checks every case's outputs."""
    other = OTHER[backend.name]

    def kernel(inputs, attrs, b):
        x = inputs[0]
        if 0 in b.shape_of(x):
            return tp.asarray(np.zeros(b.shape_of(x), b.dtype_of(x).numpy), backend=other)._data
        return x

    _register("Same", backend, kernel)
    result = opcheck("Same", backend.name, checks=("values",))
    problems = [p for p in result.problems if p.kind == "outputs"]
    assert problems and all(p.kind == "outputs" for p in result.problems), result.report()
    message = problems[0].message
    assert "Kernel 'Same'" in message and f"native array of backend '{backend.name}'" in message
