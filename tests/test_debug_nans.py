"""``tp.debug_nans()`` and ``TENSORPLUG_DEBUG_NANS=1``: the first kernel output holding NaN or
infinity raises NonFiniteError naming the kernel, its backend, its registrant and its inputs,
in the forward and the backward pass; nothing is checked while it is off."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.core.context import recorders_var


@pytest.fixture(autouse=True)
def numpy_backend():
    with tp.backend_scope("numpy"):
        yield


def test_a_kernel_giving_infinity_is_named_in_the_forward_pass():
    with tp.debug_nans(), pytest.raises(
            tp.NonFiniteError, match=r"Kernel 'Log' on backend 'numpy' \(registered by "
            r"'tensorplug-backend-numpy'\) gave infinity in its output 'out' \(float32\[2\]\) from "
            r"inputs float32\[2\]"):
        tp.log(tp.asarray([1.0, 0.0]))
    assert isinstance(tp.NonFiniteError("x"), FloatingPointError)


def test_the_backward_pass_is_checked_too():
    x = tp.asarray([0.0, 1.0])
    assert tp.sqrt(x).tolist() == [0.0, 1.0]  # the forward pass is finite
    with tp.debug_nans(), pytest.raises(tp.NonFiniteError, match=r"Kernel 'Divide' .* gave infinity"):
        tp.grad(lambda x: tp.sum(tp.sqrt(x)))(x)


def test_off_by_default_and_after_the_block():
    assert np.isnan(tp.log(tp.asarray([-1.0])).item())
    with tp.debug_nans():
        assert tp.exp(tp.asarray([1.0])).item() == pytest.approx(np.e)  # finite: no error
    assert np.isnan(tp.log(tp.asarray([-1.0])).item())
    assert not any(type(r).__name__ == "NonFiniteCheck" for r in recorders_var.get())


def test_the_environment_variable_checks_every_thread_of_the_process():
    code = ("import threading, tensorplug as tp\n"
            "errors = []\n"
            "def run():\n"
            "    try:\n"
            "        tp.log(tp.asarray([0.0], backend='numpy'))\n"
            "    except tp.NonFiniteError as exc:\n"
            "        errors.append(type(exc).__name__)\n"
            "threads = [threading.Thread(target=run) for _ in range(2)]\n"
            "[t.start() for t in threads]; [t.join() for t in threads]\n"
            "print(errors)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLUG_")}
    env["TENSORPLUG_DEBUG_NANS"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['NonFiniteError', 'NonFiniteError']"
