"""The error types: one base class, subclasses that are also the built-in a user would catch,
raised (with the right type) by real failures."""

from __future__ import annotations

import pytest

import tensorplug as tp
from tensorplug import errors

HIERARCHY = {
    "ShapeError": ValueError,
    "DTypeError": TypeError,
    "ArgumentError": TypeError,
    "OutOfMemoryError": MemoryError,
    "KernelNotFoundError": LookupError,
    "KernelSpecNotFoundError": LookupError,
    "BackendNotFoundError": LookupError,
    "GradientNotFoundError": LookupError,
    "IndexOutOfRangeError": IndexError,
    "IndexShapeError": IndexError,
    "RegistrationError": ValueError,
    "RegistrationConflictError": ValueError,
    "VariableNotFoundError": LookupError,
    "HyperparameterError": ValueError,
    "StateError": TypeError,
    "KernelError": RuntimeError,
    "KernelOutputError": RuntimeError,
    "DeviceError": LookupError,
    "TracedValueError": TypeError,
    "NonFiniteError": FloatingPointError,
    "AutodiffError": ValueError,
    "PluginError": RuntimeError,
    "PluginVersionError": RuntimeError,
    "DLPackError": BufferError,
    "CopyError": ValueError,
    "ImmutableTensorError": TypeError,
    "CheckpointError": ValueError,
    "CheckpointNotFoundError": FileNotFoundError,
    "CheckpointFileError": OSError,
    "MissingDependencyError": ImportError,
}


@pytest.mark.parametrize("name, builtin", sorted(HIERARCHY.items()))
def test_every_error_is_a_tensorplug_error_and_its_builtin(name, builtin):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.TensorplugError) and issubclass(cls, builtin)
    assert issubclass(errors.TensorplugError, Exception)


def test_the_errors_are_all_listed_and_exported():
    assert set(errors.__all__) == {"TensorplugError", "TensorplugWarning", "TensorplugPluginWarning",
                                   "ExportError",
                                   "VmapFallbackWarning", *HIERARCHY}
    for name in ["TensorplugError", "ShapeError", "DTypeError", "KernelNotFoundError", "BackendNotFoundError",
                 "GradientNotFoundError", "RegistrationError", "KernelError", "AutodiffError", "PluginError",
                 "ArgumentError", "OutOfMemoryError"]:
        assert getattr(tp, name) is getattr(errors, name)


def test_plugin_errors_carry_the_plugin_and_the_warning_is_a_user_warning():
    err = errors.PluginVersionError("built for API 9", plugin="toy")
    assert err.plugin == "toy" and isinstance(err, errors.PluginError) and str(err) == "built for API 9"
    assert errors.PluginError("x").plugin is None
    assert issubclass(errors.TensorplugPluginWarning, UserWarning)
    for warning in (errors.TensorplugPluginWarning, errors.VmapFallbackWarning):
        assert issubclass(warning, errors.TensorplugWarning)


def test_real_failures_raise_catchable_builtins():
    with pytest.raises(ValueError, match="cannot be broadcast"):
        tp.asarray([1.0, 2.0]) + tp.asarray([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="is not supported by tensorplug"):
        tp.asarray([1.0]).astype("datetime64[s]")
    with pytest.raises(LookupError, match="No backend named 'nope'"):
        tp.set_backend("nope")
    with pytest.raises(LookupError, match="No kernel spec named 'Nope'"):
        tp.run_kernel("Nope", {})
    with pytest.raises(ValueError, match="gradients need a scalar"):
        tp.grad(lambda x: x)(tp.asarray([1.0, 2.0]))
    with pytest.raises(TypeError, match="cannot differentiate with respect to argument 0"):
        tp.grad(lambda x: x)(1)
