"""The extender's rough edges of issue 36, item 4: the kit's ``sample`` takes numpy dtypes; an
unknown kernel name suggests the kernel of TF.js's name (``Sub`` -> ``Subtract``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import KernelSpecNotFoundError
from tensorplug.extend import get_kernel_spec
from tensorplug.kernels.tfjs_names import TFJS_KERNELS, TFJS_OPS
from tensorplug.testing import sample

TABLE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "tfjs-kernels.md"


@pytest.mark.parametrize("dtype", [np.float64, np.dtype(np.int16), "uint8", tp.float32])
def test_sample_takes_numpy_dtypes_and_names(dtype):
    values = sample((2, 3), dtype)
    want = np.float32 if dtype is tp.float32 else dtype
    assert values.shape == (2, 3) and values.dtype == np.dtype(want)


def test_sample_refuses_what_is_no_dtype_saying_so():
    with pytest.raises(tp.DTypeError, match=r"tensorplug.testing.sample: dtype 'float17' is not supported "
                                            r"by tensorplug; supported dtypes are bool, int8"):
        sample((2,), "float17")


@pytest.mark.parametrize(("name", "meant"), [("Sub", "Subtract"), ("sub", "Subtract"), ("Neg", "Negative"),
                                             ("RealDiv", "Divide"), ("BatchMatMul", "MatMul")])
def test_an_unknown_kernel_name_suggests_the_kernel_of_that_tfjs_name_first(name, meant):
    with pytest.raises(KernelSpecNotFoundError,
                       match=rf"No kernel spec named '{name}'\. Did you mean '{meant}' \(TF.js's '{name}'\)"):
        get_kernel_spec(name)


def test_an_unknown_kernel_name_of_a_tfjs_op_names_the_op():
    with pytest.raises(KernelSpecNotFoundError, match=r"No kernel spec named 'Mean'\. TF.js's 'Mean' is "
                                                      r"the op tp\.mean here, composed of other kernels"):
        get_kernel_spec("Mean")


def test_the_tfjs_names_agree_with_the_documented_table():
    kernels, ops = {}, {}
    for line in TABLE.read_text().splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.search(r"`([\w.]+)`", cells[0]).group(1)
        if m := re.match(r"kernel `(\w+)`", cells[1]):
            kernels[name] = m.group(1)
        elif m := re.match(r"op `([\w.]+)`", cells[1]):
            ops[name] = m.group(1)
    assert dict(TFJS_KERNELS) == kernels
    assert dict(TFJS_OPS) == ops
