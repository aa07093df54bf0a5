"""``tp.profile()`` and ``tp.memory()``: one event per kernel call (kernel, backend, registrant,
op, shapes, dtypes, time, bytes, forward or backward), the table per (kernel, backend), the
Chrome trace export, the peak of live bytes, tp.jit's compiled calls as single events, and
nothing recorded (no recorder left, no time stamps) outside the block."""

from __future__ import annotations

import gc
import json
import threading

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.core.context import profiling, recorders_var
from tensorplug.kernels.dispatcher import wrap
from tensorplug.tools.kernel_events import KernelEvent, Profile
from tensorplug.tools.memory import MemoryInfo

NUMPY = "tensorplug-backend-numpy"


@pytest.fixture(autouse=True)
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield


def f32(*shape: int) -> tp.Tensor:
    return tp.asarray(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1.0)


def kernel_events(prof: Profile) -> list[KernelEvent]:
    return [e for e in prof.events if e.category == "kernel"]


def test_each_kernel_call_is_one_event_with_what_it_ran_on():
    x, m = f32(2, 3), f32(3, 4)
    with tp.profile() as prof:
        tp.exp(x)
        _ = x + x
        tp.matmul(x, m)
        tp.nn.softmax(x)
    events = kernel_events(prof)
    assert [e.name for e in events] == ["Exp", "Add", "MatMul", "Softmax"]
    assert [e.op for e in events] == ["exp", "add", "matmul", "nn.softmax"]
    assert {(e.backend, e.source, e.phase) for e in events} == {("numpy", NUMPY, "forward")}
    assert events[1].inputs == (((2, 3), "float32"), ((2, 3), "float32"))
    assert events[2].outputs == (((2, 4), "float32"),)
    assert [e.bytes for e in events] == [24, 24, 32, 24]  # the outputs' bytes
    assert all(e.duration_ns > 0 for e in events)
    assert all(a.start_ns + a.duration_ns <= b.start_ns for a, b in zip(events, events[1:]))
    assert prof.start_ns <= events[0].start_ns and events[-1].start_ns <= prof.end_ns


def test_the_backward_pass_is_told_apart_and_names_the_gradient():
    x = f32(3)
    with tp.profile() as prof:
        tp.grad(lambda v: tp.sum(tp.exp(v)))(x)
    forward = [e.name for e in prof.events if e.phase == "forward"]
    backward = [(e.name, e.gradient_of) for e in prof.events if e.phase == "backward"]
    assert forward == ["Exp", "Sum"]
    assert ("Multiply", "Exp") in backward  # exp's gradient: dy * exp(x)
    assert backward and {g for _, g in backward} <= {"Exp", "Sum"}


def test_a_plugins_kernel_names_its_plugin_and_op():
    x = f32(2)
    with tp.profile() as prof:
        tp.ops.erf(x)
    (event,) = kernel_events(prof)
    assert (event.name, event.source, event.op) == ("Erf", "tensorplug-example-ops", "erf")


def test_the_table_has_one_row_per_kernel_and_backend_longest_first():
    x = f32(64, 64)
    with tp.profile() as prof:
        for _ in range(3):
            tp.matmul(x, x)
        tp.exp(x)
    rows = prof.rows()
    assert {(r.name, r.backend, r.calls) for r in rows} == {("MatMul", "numpy", 3), ("Exp", "numpy", 1)}
    assert [r.total_ns for r in rows] == sorted((r.total_ns for r in rows), reverse=True)
    matmul = next(r for r in rows if r.name == "MatMul")
    assert matmul.total_ns == sum(e.duration_ns for e in prof.events if e.name == "MatMul")
    assert matmul.bytes == 3 * 64 * 64 * 4 and matmul.source == NUMPY
    text = prof.table()
    assert text.splitlines()[0].split() == ["kernel", "backend", "registered", "by", "calls", "total",
                                            "ms", "mean", "us", "bytes"]
    body = [line.split()[0] for line in text.splitlines()[2:4]]
    assert body == [r.name for r in rows]
    assert "4 call(s)" in text and "peak" in text


def test_the_chrome_trace_holds_one_complete_event_per_call(tmp_path):
    x = f32(2, 3)
    with tp.profile() as prof:
        tp.exp(x)
        tp.sum(x, axis=0)
    path = prof.export_chrome_trace(tmp_path / "trace.json")
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in complete] == ["Exp", "Sum"]
    for event, recorded in zip(complete, prof.events):
        assert {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"} <= set(event)
        assert event["dur"] == pytest.approx(recorded.duration_ns / 1e3)
        assert event["ts"] == pytest.approx((recorded.start_ns - prof.start_ns) / 1e3)
        assert event["tid"] == threading.get_ident() and event["cat"] == "kernel"
    assert complete[1]["args"]["inputs"] == ["float32[2, 3]"]
    assert complete[1]["args"]["outputs"] == ["float32[3]"]
    assert complete[0]["args"]["registered_by"] == NUMPY and complete[0]["args"]["op"] == "exp"
    assert complete[0]["ts"] + complete[0]["dur"] <= complete[1]["ts"]


def test_peak_live_bytes_follow_tensors_made_and_freed():
    x = f32(1000)  # 4000 bytes
    gc.collect()
    with tp.profile() as prof:
        y = tp.exp(x)
        del y  # freed: the next one reuses the room
        z = tp.exp(x)
        del z
        kept = tp.exp(x)
    assert prof.start_bytes >= 4000
    assert prof.peak_bytes == prof.start_bytes + 4000  # one of the three alive at a time
    assert prof.end_bytes == prof.start_bytes + 4000
    assert kept.shape == (1000,)


def test_memory_counts_live_tensors_and_their_distinct_arrays_per_backend():
    def numpy_now() -> MemoryInfo:
        gc.collect()
        return tp.memory().get("numpy", MemoryInfo(0, 0))

    before = numpy_now()
    a = tp.zeros((10, 10))  # float32: 400 bytes
    alias = wrap(a._data, a._backend)  # a second tensor on the same native array
    during = numpy_now()
    assert (during.tensors - before.tensors, during.bytes - before.bytes) == (2, 400)
    del a, alias
    assert numpy_now() == before


def test_nothing_is_recorded_outside_the_block():
    x = f32(2)
    assert profiling[0] == 0
    with tp.profile() as prof:
        assert profiling[0] == 1 and len(recorders_var.get()) == 1
        tp.exp(x)
    tp.exp(x)
    assert profiling[0] == 0 and recorders_var.get() == ()
    assert [e.name for e in prof.events] == ["Exp"]


def test_only_the_profiling_thread_is_recorded():
    x = f32(2)
    ran = threading.Event()
    with tp.profile() as prof:
        tp.exp(x)

        def other() -> None:
            with tp.backend_scope("numpy"):
                tp.sqrt(x)
            ran.set()
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert ran.is_set() and [e.name for e in prof.events] == ["Exp"]


def test_a_jitted_call_on_numpy_is_one_event_its_trace_kernels_marked_traced():
    x = f32(3)
    step = tp.jit(lambda v: tp.exp(v) * 2.0)
    with tp.profile() as prof:
        for _ in range(3):
            step(x)
    jitted = [e for e in prof.events if e.category == "jit"]
    assert [e.name for e in jitted] == ["jit(<lambda>)"] * 3
    assert jitted[0].inputs == (((3,), "float32"),) and jitted[0].outputs == (((3,), "float32"),)
    kernels = kernel_events(prof)
    assert kernels and all(e.traced for e in kernels)  # only the trace's; replays run no kernels
    assert {e.name for e in kernels} == {"Exp", "Multiply"}


def test_on_jax_kernels_and_jitted_calls_are_timed_once_computed(monkeypatch):
    waited: list[int] = []
    with tp.backend_scope("jax") as jax_backend:
        wait = jax_backend.synchronize
        monkeypatch.setattr(jax_backend, "synchronize", lambda natives: (waited.append(len(natives)),
                                                                         wait(natives)))
        x = f32(3)
        step = tp.jit(lambda v: tp.exp(v) + 1.0)
        step(x)
        assert waited == []  # nothing waits while no profile records
        with tp.profile() as prof:
            tp.exp(x)
            step(x)
    assert [(e.name, e.backend, e.category) for e in prof.events] == [
        ("Exp", "jax", "kernel"), ("jit(<lambda>)", "jax", "jit")]
    assert prof.events[0].source == "tensorplug-backend-jax"
    assert all(e.duration_ns > 0 for e in prof.events)
    assert waited == [1, 1]  # the kernel's output, the compiled call's output


def test_a_variable_whose_constructor_raised_is_left_out_of_profiles_and_memory():
    try:
        tp.Variable([1.0], trainable=np.array([True, False]))  # refused: not a flag
    except tp.TensorplugError as exc:
        kept = exc  # (its traceback keeps the half-made Variable alive)
    else:
        raise AssertionError("a numpy array was accepted as trainable")
    assert any(issubclass(type(o), tp.Variable) and not hasattr(o, "_value") for o in gc.get_objects())
    with tp.profile() as prof:
        tp.add(tp.asarray([1.0]), tp.asarray([2.0]))
    assert [e.name for e in prof.events] == ["Add"]
    assert isinstance(tp.memory(), dict)
    del kept
