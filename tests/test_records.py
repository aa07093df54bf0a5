"""The registries' records (kernel specs, configs, registrations) stay immutable values: the
registries hand them out and share them between runtimes (copy on write), so a record changed
in place would change every runtime's table. ``core/records.py`` makes them without generated
code (issue 37: import time)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import pytest

import tensorplug as tp
from tensorplug.core.records import Record
from tensorplug.extend import BatchConfig, GradConfig, JvpConfig, KernelConfig, KernelSpec, OpConfig
from tensorplug.registry.backends import BackendConfig
from tensorplug.registry.onnx_lowerings import OnnxLowering


def _unary(infos, attrs):
    return [infos[0]]


def _f(*args):
    return None


RECORDS = [
    KernelSpec("ToyRecord", ("x",), _unary),
    KernelConfig("ToyRecord", "numpy", _f, dtypes=(tp.float32,)),
    GradConfig("ToyRecord", _f, inputs_to_save=("x",)),
    JvpConfig("ToyRecord", _f),
    BatchConfig("ToyRecord", _f),
    OnnxLowering("ToyRecord", _f),
    OpConfig("toy_record", _f),
    BackendConfig("toy", _f, 3),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_cannot_change(record):
    field = record.__slots__[0]
    name = type(record).__name__
    with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{field}' of {name}"):
        setattr(record, field, "other")
    with pytest.raises(FrozenInstanceError, match=f"cannot delete field '{field}'"):
        delattr(record, field)
    with pytest.raises(FrozenInstanceError):
        record.extra = 1


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_is_a_value(record):
    again = copy.copy(record)
    assert again == record and again is not record and not again != record  # noqa: SIM202  (__ne__ too)
    assert repr(record).startswith(f"{type(record).__name__}({record.__slots__[0]}=")
    assert pickle.loads(pickle.dumps(record)) == record


def test_equality_and_hash_follow_the_fields():
    a, b = GradConfig("ToyRecord", _f), GradConfig("ToyRecord", _f, ("x",))
    assert a == GradConfig("ToyRecord", _f) and hash(a) == hash(GradConfig("ToyRecord", _f))
    assert a != b and a != JvpConfig("ToyRecord", _f) and a != ("ToyRecord", _f, (), ())
    assert isinstance(a, Record) and not hasattr(a, "__dict__")
