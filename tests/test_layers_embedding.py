"""tp.nn.Embedding against torch.nn.Embedding (rows and the table's gradient, repeated ids
included, float64, numpy and jax), its Keras initialization, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tensorplug as tp

torch.set_num_threads(1)


@pytest.mark.parametrize("ids_shape", [(), (5,), (3, 4), (2, 3, 2)])
def test_rows_and_gradients_match_torch(backend, ids_shape):
    rng = np.random.default_rng(0)
    layer = tp.nn.Embedding(6, 3, dtype=tp.float64, seed=0)
    layer.embeddings.assign(rng.normal(size=(6, 3)))
    ids = rng.integers(0, 6, size=ids_shape)
    r = rng.normal(size=(*ids_shape, 3))
    reference = torch.nn.Embedding(6, 3, dtype=torch.float64)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.embeddings.numpy()))
    expected = reference(torch.tensor(ids))
    (expected * torch.tensor(r)).sum().backward()

    out = layer(ids)
    grads = tp.grad(lambda lay: tp.sum(lay(ids) * r))(layer)
    assert out.shape == (*ids_shape, 3)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads.embeddings.numpy(), reference.weight.grad.numpy(), rtol=1e-6, atol=1e-12)


def test_keras_initialization_seeded(backend):
    table = tp.nn.Embedding(50, 20, seed=3).embeddings.numpy()
    assert table.dtype == np.float32 and table.shape == (50, 20)
    assert -0.05 <= table.min() < -0.04 and 0.04 < table.max() < 0.05
    np.testing.assert_array_equal(tp.nn.Embedding(50, 20, seed=3).embeddings.numpy(), table)
    assert not np.array_equal(tp.nn.Embedding(50, 20, seed=4).embeddings.numpy(), table)
    ones = tp.nn.Embedding(2, 3, embeddings_initializer=tp.nn.initializers.ones).embeddings.numpy()
    np.testing.assert_array_equal(ones, np.ones((2, 3)))
    assert [n for n, _ in tp.nn.Embedding(2, 3).named_variables()] == ["embeddings"]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"num_embeddings": 0, "features": 3}, tp.ShapeError,
     r"Embedding: num_embeddings must be a positive int, got 0"),
    ({"num_embeddings": 3, "features": 2.5}, tp.ArgumentError,
     r"Embedding: features must be an int, got 2.5"),
    ({"num_embeddings": 3, "features": 2, "embeddings_initializer": "ones"}, tp.ArgumentError,
     r"Embedding: embeddings_initializer must be a function, got 'ones'"),
    ({"num_embeddings": 3, "features": 2, "embeddings_initializer": print}, tp.ArgumentError,
     r"Embedding: embeddings_initializer <built-in function print> must take \(shape, dtype, \*, seed\)"),
    ({"num_embeddings": 3, "features": 2, "embeddings_initializer": lambda shape, dtype, seed: tp.ones(3)},
     tp.ShapeError, r"Embedding: embeddings_initializer gave shape \(3,\), not the table's \(3, 2\)"),
    ({"num_embeddings": 3, "features": 2, "dtype": tp.int32}, tp.DTypeError,
     r"Embedding: dtype must be a floating dtype .*got int32"),
])
def test_bad_arguments_fail_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        tp.nn.Embedding(**kwargs)


def test_float_ids_name_their_dtype_and_the_layer_path(backend):
    model = tp.nn.Sequential([tp.nn.Lambda(lambda x: x), tp.nn.Embedding(4, 2)])
    with pytest.raises(tp.DTypeError, match=r"^Embedding 'layers.1': ids must be integers .*float32; cast"):
        model(np.ones(3, dtype=np.float32))
    with pytest.raises(tp.IndexOutOfRangeError, match=r"^Embedding: take: index 4 is out of range"):
        tp.nn.Embedding(4, 2)(np.array([1, 4]))
