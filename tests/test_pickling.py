"""Copying and pickling tensors and Variables on each backend (tensorplug.io.pickling): a tensor's
copies are the tensor itself; pickled, it comes back on its backend with its dtype and values;
a Variable's copy is a new Variable under a free name; an unpickled Variable keeps its name
when it is free; tensors without values of their own (tp.jit, tp.vmap) refuse clearly."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.io.pickling import restore_tensor

BACKENDS = ("numpy", "jax")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [tp.float32, tp.bfloat16, tp.int8, tp.bool_, tp.complex64],
                         ids=lambda d: d.name)
def test_a_pickled_tensor_comes_back_on_its_backend_with_its_dtype_and_values(backend, dtype):
    with tp.backend_scope(backend):
        x = tp.astype(tp.asarray(np.arange(6).reshape(2, 3) % 3), dtype)
    tp.set_backend("numpy" if backend == "jax" else "jax")  # (not where it was made)
    y = pickle.loads(pickle.dumps(x))
    assert (y.backend, y.dtype, y.shape) == (backend, dtype, (2, 3))
    assert y._backend is x._backend  # the running backend, not a copy of it
    np.testing.assert_array_equal(y.numpy(), x.numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_copies_of_a_tensor_are_the_tensor_itself(backend):
    with tp.backend_scope(backend):
        x = tp.asarray([1.0, -0.0])
        tree = {"a": x, "b": [x, 2]}
    assert copy.copy(x) is x and copy.deepcopy(x) is x
    copied = copy.deepcopy(tree)
    assert copied["a"] is x and copied["b"][0] is x and copied is not tree


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_copied_variable_is_a_new_variable_under_a_free_name(backend):
    with tp.backend_scope(backend):
        w = tp.Variable([1.0, 2.0], name="w", trainable=False)
    tp.set_backend("numpy" if backend == "jax" else "jax")
    deep, shallow = copy.deepcopy(w), copy.copy(w)
    assert (deep.name, shallow.name) == ("w_1", "w_2")
    for c in (deep, shallow):
        assert (c.backend, c.dtype, c.trainable) == (backend, tp.float32, False)
    deep.assign([5.0, 6.0])
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(deep.numpy(), [5.0, 6.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unpickled_variable_keeps_its_name_when_it_is_free(backend):
    with tp.backend_scope(backend):
        w = tp.Variable([[1.0, 2.0]], name="layer/kernel")
    data = pickle.dumps(w)
    twin = pickle.loads(data)  # the original is alive: a free name
    assert twin.name == "layer/kernel_1" and twin.backend == backend
    del w, twin
    back = pickle.loads(data)
    assert back.name == "layer/kernel" and back.trainable
    assert tp.variable_grads(lambda: tp.sum(back * back), [back])[1]["layer/kernel"].shape == (1, 2)


def test_tensors_without_values_of_their_own_refuse_to_be_pickled():
    @tp.jit
    def f(x):
        pickle.dumps(x)
        return x

    with pytest.raises(tp.TracedValueError, match="tp.jit on backend 'numpy'"):
        f(tp.asarray([1.0]))
    with pytest.raises(tp.TracedValueError, match="cannot read values inside vmap"):
        tp.vmap(pickle.dumps)(tp.ones((2, 2)))


def test_unpickling_on_a_backend_not_installed_names_it():
    with pytest.raises(tp.BackendNotFoundError, match="No backend named 'nosuch'.*pip install"):
        restore_tensor(np.ones(2, np.float32), "float32", "nosuch")
