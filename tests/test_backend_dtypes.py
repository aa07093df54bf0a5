"""Backends declare the dtypes they hold (issue 36, item 1): ``BackendConfig.dtypes``, narrowed
per kernel by ``KernelConfig.dtypes``; conversions onto a backend refuse other dtypes with a
DTypeError naming the nearest one it holds; the conformance kit tests kernels in the backend's
dtypes only (probing a backend that declares none) and says what it skipped and how to
declare; ``tensorplug info`` shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensorplug as tp
from _conformance_run import run_kit
from _toy_backend import TOY_SOURCE, ToyArray, ToyBackend, toy_kernel
from tensorplug.backends.held_dtypes import nearest_dtype
from tensorplug.cli import main
from tensorplug.dtypes import ALL_DTYPES, bfloat16, float16, float32, float64, int32, int64, uint32, uint64
from tensorplug.extend import (
    BackendConfig,
    DirectCall,
    KernelConfig,
    kernels_for_backend,
    register_backend,
    register_kernel,
    start_backend,
)
from tensorplug.registry._slots import registering_as
from tensorplug.testing import opcheck
from tensorplug.testing.coverage import Coverage, make_plan
from tensorplug.testing.dtype_probe import held_dtypes
from tensorplug.testing.selection import Selection

#: what a float32 backend written from the guide implements (with what their gradients need)
F32_KERNELS = ("Add", "BroadcastTo", "Exp", "Fill", "Multiply", "Negative", "Reshape", "Sum")


class Float32Backend(ToyBackend):
    """A backend whose library has float32 only: from_numpy refuses every other dtype."""

    def from_numpy(self, array: np.ndarray) -> ToyArray:
        if array.dtype != np.float32:
            raise TypeError(f"f32 holds float32 only, not {array.dtype}")
        return super().from_numpy(array)


def install_f32(name: str = "f32", dtypes: Any = None, kernels: tuple[str, ...] = F32_KERNELS,
                factory: type[ToyBackend] = Float32Backend) -> None:
    start_backend("numpy")
    numpy_kernels = {k.kernel_name: k.kernel_func for k in kernels_for_backend("numpy")}
    with registering_as(TOY_SOURCE):
        register_backend(BackendConfig(name, factory, priority=-1, dtypes=dtypes))
        for kernel in kernels:
            register_kernel(KernelConfig(kernel, name, toy_kernel(kernel, numpy_kernels[kernel])))


# -- nearest dtype ------------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "held", "nearest"), [
    (float64, {float32, int32}, float32),      # same kind, next smaller
    (float16, {float32, float64}, float32),    # same kind, next larger
    (float16, {bfloat16, float32}, bfloat16),  # same kind, same size first
    (uint64, {uint32, int64}, int64),          # no integer holds every value: the widest range
    (uint64, {int64, float32}, int64),         # the other integer kind
    (tp.uint8, {tp.int8, tp.int16, int32}, tp.int16),  # the smallest that holds every value
    (tp.uint16, {tp.uint8, tp.int8, tp.int16, int32, int64}, int32),
    (tp.int16, {tp.uint16, int32, uint32}, int32),     # (unsigned ones drop the negative values)
    (uint32, {uint64, int64}, uint64),         # its own kind first at a size
    (tp.bool, {float32}, None),
])
def test_nearest_dtype(dtype, held, nearest):
    assert nearest_dtype(dtype, held) is nearest


def test_configs_take_tensorplug_dtypes_only():
    assert BackendConfig("b", ToyBackend, dtypes=[float32]).dtypes == frozenset({float32})
    with pytest.raises(tp.RegistrationError, match=r"BackendConfig 'b': dtypes must be tensorplug dtypes "
                                                  r"\(tp.float32, ...\), got \['float32'\]"):
        BackendConfig("b", ToyBackend, dtypes=["float32"])
    with pytest.raises(tp.RegistrationError, match="KernelConfig for 'Exp' on backend 'b': dtypes must be"):
        KernelConfig("Exp", "b", lambda i, a, b: i[0], dtypes=())


# -- conversions onto a backend refuse what it does not hold --------------------------------------
def test_conversions_refuse_a_dtype_the_backend_does_not_hold():
    install_f32(dtypes=(float32,))
    where = r"backend 'f32' cannot hold float64; it holds float32\. Either cast to the nearest dtype it " \
            r"holds, float32 \(e.g. x.astype\(tp.float32\) or dtype=tp.float32\)"
    with tp.backend_scope("f32"):
        assert tp.asarray([1.0, 2.0]).dtype is float32
        with pytest.raises(tp.DTypeError, match="asarray: " + where):
            tp.asarray(np.zeros(2))
        with pytest.raises(tp.DTypeError, match="asarray: " + where):
            tp.asarray([1.0], dtype=tp.float64)
        with pytest.raises(tp.DTypeError, match="zeros: " + where):
            tp.zeros(3, dtype=tp.float64)
        with pytest.raises(tp.DTypeError, match="arange: backend 'f32' cannot hold int64; it holds float32"):
            tp.arange(3)
        with pytest.raises(tp.DTypeError, match="eye: " + where):
            tp.eye(2, dtype=tp.float64)
        with pytest.raises(tp.DTypeError, match="linspace: " + where):
            tp.linspace(0, 1, 3, dtype=tp.float64)
        with pytest.raises(tp.DTypeError, match="astype: " + where):
            tp.asarray([1.0]).astype(tp.float64)
        assert (tp.asarray([1.0]) * 2).dtype is float32  # a Python int is weak: float32 here
        with pytest.raises(tp.DTypeError, match="asarray: backend 'f32' cannot hold int64"):
            tp.asarray([1, 2])  # ... an int64 array is not
        with pytest.raises(tp.DTypeError, match="fftfreq: " + where):
            tp.fft.fftfreq(4, dtype=tp.float64)
        with pytest.raises(tp.DTypeError, match="uniform: " + where):
            tp.random.uniform((2,), seed=0, dtype=tp.float64)
    install_f32("f32i", dtypes=(float32, int64), kernels=("OneHot",), factory=ToyBackend)
    with tp.backend_scope("f32i"):
        indices = tp.asarray([0, 1])
        assert tp.nn.one_hot(indices, 2).dtype is float32
        with pytest.raises(tp.DTypeError, match=r"one_hot: backend 'f32i' cannot hold int32; it holds "
                                                r"int64, float32\. Either cast to the nearest dtype it "
                                                r"holds, int64"):
            tp.nn.one_hot(indices, 2, dtype=tp.int32)
    moved = tp.asarray(np.zeros(2))  # float64 on numpy
    with pytest.raises(tp.DTypeError, match="asarray: " + where):
        tp.asarray(moved, backend="f32")
    onto = tp.asarray(moved, backend="f32", dtype=tp.float32)  # cast on numpy, then moved
    assert (onto.backend, onto.dtype) == ("f32", float32)


@pytest.mark.parametrize("name", ["numpy", "jax"])
def test_first_party_backends_declare_every_dtype(name):
    assert start_backend(name).dtypes == frozenset(ALL_DTYPES)
    with tp.backend_scope(name):
        assert tp.zeros(2, dtype=tp.uint64).dtype is uint64  # nothing refused


def test_a_kernel_config_narrows_the_backends_dtypes():
    install_f32("narrow", dtypes=ALL_DTYPES, kernels=(), factory=ToyBackend)
    numpy_exp = next(k.kernel_func for k in kernels_for_backend("numpy") if k.kernel_name == "Exp")
    register_kernel(KernelConfig("Exp", "narrow", toy_kernel("Exp", numpy_exp), dtypes=(float32,)))
    with pytest.raises(tp.RegistrationError, match=r"its DirectCall serves \['float64'\], which the "
                                                   r"config's dtypes leave out"):
        register_kernel(KernelConfig("Negative", "narrow", toy_kernel("Negative", numpy_exp),
                                     direct=DirectCall((float64,), lambda x: x), dtypes=(float32,)))
    with tp.backend_scope("narrow"):
        assert tp.exp(tp.asarray([0.0])).tolist() == [1.0]
        with pytest.raises(tp.DTypeError, match=r"Kernel 'Exp' on backend 'narrow' serves float32 only \(its "
                                                r"KernelConfig's dtypes, registered by 'user code'\), not "
                                                r"float64: cast the input first \(x.astype\(tp.float32\)\)"):
            tp.exp(tp.asarray([0.0], dtype=tp.float64))
    result = opcheck("Exp", backend="narrow", checks=("values",))
    assert result.ok, result.report()
    assert ("float64, float16, bfloat16, complex64, complex128: not in the dtypes of Exp's KernelConfig"
            in result.report())


# -- the conformance kit --------------------------------------------------------------------------
@pytest.mark.parametrize("declared", [(float32,), None], ids=["declared", "probed"])
def test_a_float32_only_backend_passes_the_kit_for_its_kernels(declared):
    install_f32(dtypes=declared)
    for kernel in F32_KERNELS:
        result = opcheck(kernel, backend="f32", gradient_order=2)
        assert result.ok, result.report()
        assert result.cases > 0 and result.bad_cases > 0, result.report()
        if kernel != "Fill":
            assert result.gradient.endswith("in float32"), result.report()
    report = opcheck("Exp", backend="f32", checks=("values",)).report()
    assert ("35 case(s) not run, in dtypes the backend does not hold or the kernel does not serve: float64, "
            "float16, bfloat16, complex64, complex128: ") in report


def test_the_probe_finds_a_backends_dtypes_once_and_says_why_it_skipped_the_others():
    install_f32()
    backend = start_backend("f32")
    held = held_dtypes(backend)
    assert held.dtypes == frozenset({float32}) and not held.declared
    assert held.skipped[int64] == "from_numpy/to_numpy raised TypeError: f32 holds float32 only, not int64"
    assert held_dtypes(backend) is held  # found once


def test_the_kit_summary_lists_skipped_dtypes_and_says_how_to_declare():
    install_f32()
    plan = make_plan("f32")
    summary = "\n".join(Coverage().summary(plan, Selection(), "rerun", width=1000))
    assert ("dtypes: backend 'f32' holds float32 (found by a round trip through from_numpy/to_numpy); "
            "the kit tests kernels in those only") in summary
    assert ("dtypes: skipped dtypes bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float64, "
            "float16, bfloat16, complex64, complex128: from_numpy/to_numpy raised TypeError: f32 holds "
            "float32 only, not <dtype>") in summary
    assert "dtypes: declare them in its plugin: BackendConfig('f32', factory, dtypes=(tp.float32,))" \
        in summary
    assert "dtypes:" not in "\n".join(Coverage().summary(make_plan("numpy"), Selection(), "rerun"))


def test_info_shows_each_backends_dtypes(capsys):
    install_f32(dtypes=(float32, int32))
    main(["info"])
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert rows["numpy"].endswith("all 15") and rows["f32"].endswith("int32, float32")


CONFTEST = '''
import numpy as np
from _toy_backend import ToyBackend, toy_kernel
from tensorplug.extend import (BackendConfig, KernelConfig, kernels_for_backend, register_backend,
                               register_kernel, start_backend)


class Float32Backend(ToyBackend):
    def from_numpy(self, array):
        if array.dtype != np.float32:
            raise TypeError(f"float32 only, not {array.dtype}")
        return super().from_numpy(array)


start_backend("numpy")
numpy_kernels = {k.kernel_name: k.kernel_func for k in kernels_for_backend("numpy")}
register_backend(BackendConfig("f32", Float32Backend, priority=-1))
for name in KERNELS:
    register_kernel(KernelConfig(name, "f32", toy_kernel(name, numpy_kernels[name])))
'''


@pytest.mark.slow
def test_the_kit_passes_a_float32_only_backend_that_declares_nothing(tmp_path):
    """The whole kit (the pytest plugin), as a backend author runs it, on a backend whose
    from_numpy takes float32 alone and that declares no dtypes: green, and it says why."""
    (tmp_path / "conftest.py").write_text(f"KERNELS = {F32_KERNELS!r}\n" + CONFTEST)
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.tensorplug.conformance]\ninclude = {list(F32_KERNELS)!r}\n")
    run = run_kit("f32", cwd=tmp_path, pythonpath=Path(__file__).parent)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = " ".join(run.summary.split())
    assert "passing (8): Add, BroadcastTo, Exp, Fill, Multiply, Negative, Reshape, Sum" in summary
    assert "gradients: 7 checked, 7 passing, 0 failing, 0 blocked" in summary
    assert "dtypes: declare them in its plugin: BackendConfig('f32', factory, dtypes=(tp.float32,))" \
        in summary
