"""Layers built from a random key (``key=`` beside ``seed=``): the i-th variable's values are
its initializer's from ``tp.random.fold_in(key, i)``, so a key gives the same layer on every
backend and in every run; a key leaves ``tp.nn.set_seed``'s sequence alone; both a seed and a
key is an error naming the layer. And tp.nn.dropout from a key."""

from __future__ import annotations

import numpy as np
import pytest

import tensorplug as tp
from tensorplug.errors import ArgumentError, DTypeError

inits = tp.nn.initializers


def values(x):
    return np.asarray(x)


def test_dense_variables_come_from_the_key_folded_per_variable(backend):
    k = tp.random.key(4)
    layer = tp.nn.Dense(5, in_features=3, key=k, bias_initializer=inits.normal(1.0))
    kernel = inits.glorot_uniform()(tp.random.fold_in(k, 0), (3, 5))
    np.testing.assert_array_equal(values(layer.kernel), values(kernel))
    bias = inits.normal(1.0)(tp.random.fold_in(k, 1), (5,))
    np.testing.assert_array_equal(values(layer.bias), values(bias))
    again = tp.nn.Dense(5, key=k, bias_initializer=inits.normal(1.0))
    again(np.ones((2, 3), np.float32))  # (built from the first input, from the same key)
    np.testing.assert_array_equal(values(again.kernel), values(layer.kernel))
    other = tp.nn.Dense(5, in_features=3, key=tp.random.key(5))
    assert not np.array_equal(values(other.kernel), values(layer.kernel))


def test_conv_and_embedding_from_a_key(backend):
    k = tp.random.key(1)
    conv = tp.nn.Conv2D(4, 3, in_channels=2, key=k)
    np.testing.assert_array_equal(values(conv.kernel),
                                  values(inits.glorot_uniform()(tp.random.fold_in(k, 0), (3, 3, 2, 4))))
    table = tp.nn.Embedding(10, 3, key=k)
    want = tp.random.uniform(k, (10, 3), tp.float32, -0.05, 0.05)
    np.testing.assert_array_equal(values(table.embeddings), values(want))
    assert table.seed is None
    custom = tp.nn.Embedding(10, 3, key=k, embeddings_initializer=inits.normal(0.1))
    np.testing.assert_array_equal(values(custom.embeddings), values(inits.normal(0.1)(k, (10, 3))))


@pytest.mark.parametrize("cls", [tp.nn.SimpleRNN, tp.nn.LSTM, tp.nn.GRU])
def test_recurrent_layers_from_a_key_repeat(backend, cls):
    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32)
    first = cls(5, key=tp.random.key(7), bias_initializer=inits.normal(0.5))
    second = cls(5, key=tp.random.key(7), bias_initializer=inits.normal(0.5))
    np.testing.assert_array_equal(values(first(x)), values(second(x)))
    cell = first.cell
    np.testing.assert_array_equal(values(cell.recurrent_kernel),
                                  values(inits.orthogonal()(tp.random.fold_in(tp.random.key(7), 1),
                                                            cell.recurrent_kernel.shape)))
    both = tp.nn.Bidirectional(cls(5, key=tp.random.key(7)), key=tp.random.key(8))
    both(x)
    forward, backward = both.forward_layer.cell.kernel, both.backward_layer.cell.kernel
    assert not np.array_equal(values(forward), values(backward))


def test_dropout_takes_a_key(backend):
    k = tp.random.key(3)
    x = np.ones((6, 7), np.float32)
    layer = tp.nn.Dropout(0.5, key=k)
    assert layer.seed is None
    keep = values(tp.random.bernoulli(tp.random.split(k)[0], 0.5, (6, 7)))
    np.testing.assert_array_equal(values(layer(x)), np.where(keep, 2.0, 0.0))
    np.testing.assert_array_equal(values(tp.nn.Dropout(0.5, key=k)(x)), values(tp.nn.Dropout(0.5, key=k)(x)))


def test_attention_and_normalization_take_a_key(backend):
    k = tp.random.key(2)
    mha = tp.nn.MultiHeadAttention(2, 4, in_features=6, key=k)
    assert mha.seed is None and mha.built
    want = inits.glorot_uniform(in_axis=0, out_axis=(1, 2))(tp.random.fold_in(k, 1), (6, 2, 4))
    np.testing.assert_array_equal(values(mha.key_kernel), values(want))
    again = tp.nn.MultiHeadAttention(2, 4, key=k)
    x = np.random.default_rng(1).normal(size=(2, 3, 6)).astype(np.float32)
    np.testing.assert_array_equal(values(again(x)), values(mha(x)))
    for cls in (tp.nn.LayerNorm, tp.nn.BatchNorm, tp.nn.RMSNorm):
        layer = cls(in_features=3, key=k)
        np.testing.assert_array_equal(values(layer.gamma), np.ones(3))


def test_functional_dropout_takes_a_key(backend):
    k = tp.random.key(9)
    x = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)
    keep = values(tp.random.bernoulli(k, 0.75, (3, 4)))
    got = values(tp.nn.dropout(x, 0.25, key=k))
    np.testing.assert_allclose(got, np.where(keep, x / 0.75, 0.0), rtol=1e-6)
    jitted = tp.jit(lambda v, kk: tp.nn.dropout(v, 0.25, key=kk))(tp.asarray(x), k)
    np.testing.assert_array_equal(values(jitted), values(tp.nn.dropout(x, 0.25, key=k)))
    assert tp.nn.dropout(x, 0.25, key=k, deterministic=True).shape == (3, 4)
    with pytest.raises(ArgumentError, match=r"dropout: pass exactly one of seed and key, got both"):
        tp.nn.dropout(x, 0.5, seed=0, key=k)
    with pytest.raises(ArgumentError, match=r"dropout: pass exactly one of seed and key, got neither"):
        tp.nn.dropout(x, 0.5)
    with pytest.raises(DTypeError, match=r"dropout: key must be a uint32 tensor"):
        tp.nn.dropout(x, 0.5, key=tp.ones((2,)))


def test_a_key_leaves_the_seed_sequence_alone(backend):
    tp.nn.set_seed(3)
    tp.nn.Dense(2, in_features=2, key=tp.random.key(0))
    after_key = tp.nn.Dense(2, in_features=2)
    tp.nn.set_seed(3)
    np.testing.assert_array_equal(values(after_key.kernel), values(tp.nn.Dense(2, in_features=2).kernel))


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: tp.nn.Dense(2, seed=0, key=tp.random.key(0)), ArgumentError,
     r"Dense: got both seed=0 and key=; pass one of them"),
    (lambda: tp.nn.Conv2D(2, 3, seed=1, key=tp.random.key(0)), ArgumentError,
     r"Conv2D: got both seed=1 and key="),
    (lambda: tp.nn.LSTM(2, seed=1, key=tp.random.key(0)), ArgumentError,
     r"LSTMCell: got both seed=1 and key="),
    (lambda: tp.nn.Embedding(3, 2, seed=1, key=tp.random.key(0)), ArgumentError, r"Embedding: got both"),
    (lambda: tp.nn.Dropout(0.5, seed=1, key=tp.random.key(0)), ArgumentError, r"Dropout: got both"),
    (lambda: tp.nn.MultiHeadAttention(2, 4, seed=1, key=tp.random.key(0)), ArgumentError,
     r"MultiHeadAttention: got both"),
    (lambda: tp.nn.LayerNorm(seed=1, key=tp.random.key(0)), ArgumentError, r"LayerNorm: got both"),
    (lambda: tp.nn.Dense(2, key=tp.ones((2,))), DTypeError,
     r"Dense: key must be a uint32 tensor of shape \(2,\)"),
    (lambda: tp.nn.Dense(2, key=7), ArgumentError, r"Dense: key must be a key tensor, got 7"),
])
def test_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
