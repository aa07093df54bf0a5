"""tp.nn.MultiHeadAttention against torch.nn.MultiheadAttention (batch_first, key_dim = embed_dim /
num_heads, weights copied: in_proj split into query, key and value, out_proj), self- and
cross-attention, boolean masks (Keras's True keeps; torch's True masks out: inverted here) and
causal: outputs and the gradients of sum(out * r) with respect to the inputs and every weight,
float64, numpy and jax. value_dim != key_dim (which torch cannot express) and dropout against
a reference written here with numpy; the errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tensorplug as tp

torch.set_num_threads(1)

TOL = {"rtol": 1e-6, "atol": 1e-6}

CASES = {  # name: (heads, key_dim, use_bias, query length, key length, separate key, mask, causal)
    "self": (2, 3, True, 4, 4, False, False, False),
    "cross": (3, 2, True, 3, 5, True, False, False),
    "mask": (2, 3, True, 4, 5, True, True, False),
    "causal": (2, 2, True, 4, 4, False, False, True),
    "mask_causal_no_bias": (1, 4, False, 4, 4, True, True, True),
}


def _copy_to_torch(layer, module, heads, key_dim):
    embed = heads * key_dim

    def flat(v):
        return torch.tensor(v.numpy().reshape(v.shape[0], -1))
    with torch.no_grad():
        module.in_proj_weight.copy_(torch.cat([flat(layer.query_kernel).T, flat(layer.key_kernel).T,
                                               flat(layer.value_kernel).T]))
        module.out_proj.weight.copy_(torch.tensor(layer.output_kernel.numpy().reshape(embed, embed)).T)
        if layer.use_bias:
            module.in_proj_bias.copy_(torch.cat([torch.tensor(getattr(layer, f"{n}_bias").numpy().ravel())
                                                 for n in ("query", "key", "value")]))
            module.out_proj.bias.copy_(torch.tensor(layer.output_bias.numpy()))


def _randomize(layer, rng):
    for _, v in layer.named_variables():
        v.assign(rng.normal(size=v.shape) * 0.5)


@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_torch(backend, case):
    heads, key_dim, bias, t, s, separate_key, masked, causal = CASES[case]
    embed = heads * key_dim
    rng = np.random.default_rng(len(case))
    query = rng.normal(size=(2, t, embed))
    value = rng.normal(size=(2, s, embed))
    key = rng.normal(size=(2, s, embed)) if separate_key else None
    keep = None
    if masked:
        keep = rng.random((2, t, s)) < 0.6
        keep[..., 0] = True  # (no fully masked row: torch gives NaN there)
    layer = tp.nn.MultiHeadAttention(heads, key_dim, use_bias=bias, seed=0)
    layer(query, value, key)
    _randomize(layer, rng)
    module = torch.nn.MultiheadAttention(embed, heads, bias=bias, batch_first=True, dtype=torch.float64)
    _copy_to_torch(layer, module, heads, key_dim)
    r = rng.normal(size=(2, t, embed))

    def loss(lay, q, v, k):
        return tp.sum(lay(q, v, k, attention_mask=keep, use_causal_mask=causal) * r)

    inputs = [tp.asarray(a) for a in (query, value, key if separate_key else value)]
    out = layer(inputs[0], inputs[1], inputs[2] if separate_key else None, attention_mask=keep,
                use_causal_mask=causal)
    grads = tp.grad(loss, argnums=(0, 1, 2, 3))(layer, *inputs)

    tq, tv = (torch.tensor(a, requires_grad=True) for a in (query, value))
    tk = torch.tensor(key, requires_grad=True) if separate_key else tv
    blocked = np.zeros((2, t, s), dtype=bool) if keep is None else ~keep  # torch: True masks out
    if causal:
        blocked = blocked | ~np.tril(np.ones((t, s), dtype=bool))
    attn_mask = torch.tensor(np.repeat(blocked, heads, axis=0)) if (masked or causal) else None
    expected, _ = module(tq, tk, tv, attn_mask=attn_mask, need_weights=False)
    (expected * torch.tensor(r)).sum().backward()

    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), **TOL)
    g_layer, g_query, g_value, g_key = grads
    np.testing.assert_allclose(g_query.numpy(), tq.grad.numpy(), **TOL)
    if separate_key:
        np.testing.assert_allclose(g_value.numpy(), tv.grad.numpy(), **TOL)
        np.testing.assert_allclose(g_key.numpy(), tk.grad.numpy(), **TOL)
    else:  # value and key are one input in torch's call: their gradients add up
        np.testing.assert_allclose(g_value.numpy() + g_key.numpy(), tv.grad.numpy(), **TOL)
    in_grad = module.in_proj_weight.grad.numpy()
    for i, name in enumerate(("query", "key", "value")):
        ours = getattr(g_layer, f"{name}_kernel").numpy().reshape(embed, embed).T
        np.testing.assert_allclose(ours, in_grad[i * embed:(i + 1) * embed], **TOL, err_msg=name)
        if bias:
            np.testing.assert_allclose(getattr(g_layer, f"{name}_bias").numpy().ravel(),
                                       module.in_proj_bias.grad.numpy()[i * embed:(i + 1) * embed], **TOL)
    np.testing.assert_allclose(g_layer.output_kernel.numpy().reshape(embed, embed).T,
                               module.out_proj.weight.grad.numpy(), **TOL)
    if bias:
        np.testing.assert_allclose(g_layer.output_bias.numpy(), module.out_proj.bias.grad.numpy(), **TOL)


@pytest.mark.parametrize("case", ["mask", "mask_causal_no_bias"])
def test_attention_scores_match_torch(backend, case):
    """return_attention_scores (the written-out attention) against torch's per-head weights."""
    heads, key_dim, bias, t, s, _, _, causal = CASES[case]
    embed = heads * key_dim
    rng = np.random.default_rng(11)
    query, value = rng.normal(size=(2, t, embed)), rng.normal(size=(2, s, embed))
    keep = rng.random((2, t, s)) < 0.6
    keep[..., 0] = True
    layer = tp.nn.MultiHeadAttention(heads, key_dim, use_bias=bias, in_features=embed, seed=0)
    _randomize(layer, rng)
    module = torch.nn.MultiheadAttention(embed, heads, bias=bias, batch_first=True, dtype=torch.float64)
    _copy_to_torch(layer, module, heads, key_dim)
    out, scores = layer(query, value, attention_mask=keep, use_causal_mask=causal,
                        return_attention_scores=True)
    blocked = ~keep | (~np.tril(np.ones((t, s), dtype=bool)) if causal else False)
    tv = torch.tensor(value)
    attn_mask = torch.tensor(np.repeat(blocked, heads, 0))  # torch: True masks out
    expected, weights = module(torch.tensor(query), tv, tv, attn_mask=attn_mask, average_attn_weights=False)
    assert scores.shape == (2, heads, t, s)
    np.testing.assert_allclose(scores.numpy(), weights.detach().numpy(), **TOL)
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), **TOL)


def _numpy_attention(layer, query, value, keep, dropped=None):
    """The layer's computation in numpy: projections, softmax of scaled logits (masked logits
    out), attention weights times `dropped` (a scaled dropout mask) if given, output projection."""
    def project(x, name):
        return np.einsum("btd,dnh->btnh", x, getattr(layer, f"{name}_kernel").numpy()) + getattr(
            layer, f"{name}_bias").numpy()
    q, k, v = project(query, "query"), project(value, "key"), project(value, "value")
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(layer.key_dim)
    logits = np.where(keep[:, None], logits, -np.inf)
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    if dropped is not None:
        weights = weights * dropped
    heads = np.einsum("bnts,bsnh->btnh", weights, v)
    return np.einsum("btnh,nho->bto", heads, layer.output_kernel.numpy()) + layer.output_bias.numpy()


def test_value_dim_other_than_key_dim_and_output_shape(backend):
    rng = np.random.default_rng(3)
    layer = tp.nn.MultiHeadAttention(2, 3, value_dim=5, output_shape=4, seed=1)
    query, value = rng.normal(size=(2, 3, 6)), rng.normal(size=(2, 4, 7))
    keep = rng.random((2, 3, 4)) < 0.7
    keep[..., 0] = True
    out = layer(query, value, attention_mask=keep)
    assert layer.value_kernel.shape == (7, 2, 5) and layer.output_kernel.shape == (2, 5, 4)
    _randomize(layer, rng)
    np.testing.assert_allclose(layer(query, value, attention_mask=keep).numpy(),
                               _numpy_attention(layer, query, value, keep), **TOL)
    assert out.shape == (2, 3, 4)


def test_written_out_attention_gradients_against_finite_differences(backend):
    """The path torch cannot check (value_dim != key_dim): gradients with respect to the query
    and the value, masked, against central differences."""
    rng = np.random.default_rng(6)
    layer = tp.nn.MultiHeadAttention(2, 2, value_dim=3, seed=3)
    query, value = rng.normal(size=(1, 3, 4)), rng.normal(size=(1, 2, 5))
    keep = np.array([[[True, False], [True, True], [False, True]]])
    layer(query, value)
    tp.testing.check_gradients(lambda q, v: layer(q, v, attention_mask=keep), query, value)


def test_dropout_on_the_attention_weights_in_training_only(backend):
    rng = np.random.default_rng(4)
    query = rng.normal(size=(2, 3, 4))
    layer = tp.nn.MultiHeadAttention(2, 2, dropout=0.5, seed=2)
    layer(query, query)
    _randomize(layer, rng)
    keep = np.ones((2, 3, 3), dtype=bool)
    layer.eval()
    expected = _numpy_attention(layer, query, query, keep)
    np.testing.assert_allclose(layer(query, query).numpy(), expected, **TOL)
    layer.train()
    first, second = layer(query, query).numpy(), layer(query, query).numpy()
    assert not np.allclose(first, second)  # a new mask at each call
    # the mask that call drew: the second of a Dropout of the same seed (the build call drew the first)
    twin = tp.nn.Dropout(0.5, seed=layer.attention_dropout.seed)
    twin(np.ones((2, 2, 3, 3)))
    scaled_mask = twin(np.ones((2, 2, 3, 3))).numpy()
    np.testing.assert_allclose(first, _numpy_attention(layer, query, query, keep, scaled_mask), **TOL)
    np.testing.assert_allclose(layer(query, query, training=False).numpy(),
                               _numpy_attention(layer, query, query, keep), **TOL)


def test_sizes_given_up_front_and_variable_paths(backend):
    layer = tp.nn.MultiHeadAttention(4, 2, in_features=8, seed=0)
    assert layer.built
    assert [(n, v.shape) for n, v in layer.named_variables()] == [
        ("query_kernel", (8, 4, 2)), ("query_bias", (4, 2)), ("key_kernel", (8, 4, 2)),
        ("key_bias", (4, 2)), ("value_kernel", (8, 4, 2)), ("value_bias", (4, 2)),
        ("output_kernel", (4, 2, 8)), ("output_bias", (8,))]
    unbiased = tp.nn.MultiHeadAttention(1, 2, use_bias=False, in_features=3)
    assert [n for n, _ in unbiased.named_variables()] == [
        "query_kernel", "key_kernel", "value_kernel", "output_kernel"]
    again = tp.nn.MultiHeadAttention(4, 2, in_features=8, seed=0)
    np.testing.assert_array_equal(again.query_kernel.numpy(), layer.query_kernel.numpy())


def test_self_attention_by_default_and_in_a_sequential(backend):
    x = np.random.default_rng(7).normal(size=(2, 3, 4))
    layer = tp.nn.MultiHeadAttention(2, 2, seed=0)
    np.testing.assert_array_equal(layer(x).numpy(), layer(x, x, x).numpy())
    model = tp.nn.Sequential([tp.nn.LayerNorm(), tp.nn.MultiHeadAttention(2, 2), tp.nn.Dropout(0.1)])
    model.build((None, 3, 4))
    assert model(x).shape == (2, 3, 4)
    assert model.layers[1].value_kernel.shape == (4, 2, 2)


def test_under_jit_like_eager(backend):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 3, 4))
    layer = tp.nn.MultiHeadAttention(2, 2, seed=0)
    eager = layer(x, x, use_causal_mask=True).numpy()
    step = tp.jit(lambda inputs: layer(inputs, inputs, use_causal_mask=True))
    np.testing.assert_allclose(step(tp.asarray(x)).numpy(), eager, **TOL)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"num_heads": 0, "key_dim": 2}, tp.ShapeError,
     r"MultiHeadAttention: num_heads must be a positive int, got 0"),
    ({"num_heads": 2, "key_dim": 2.0}, tp.ArgumentError,
     r"MultiHeadAttention: key_dim must be an int, got 2.0"),
    ({"num_heads": 2, "key_dim": 2, "dropout": 1.0}, tp.ShapeError,
     r"MultiHeadAttention: dropout must be in \[0, 1\)"),
    ({"num_heads": 2, "key_dim": 2, "output_shape": 0}, tp.ShapeError,
     r"MultiHeadAttention: output_shape must be a positive int"),
])
def test_bad_arguments_fail_at_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        tp.nn.MultiHeadAttention(**kwargs)


def test_bad_inputs_say_what_the_layer_expected(backend):
    layer = tp.nn.MultiHeadAttention(2, 2, in_features=4)
    x = np.ones((2, 3, 4))
    with pytest.raises(tp.ShapeError, match=r"^MultiHeadAttention: expected 4, 4 and 4 features .*5\)"):
        layer(x, np.ones((2, 3, 5)))
    with pytest.raises(tp.ShapeError, match=r"expected query, key and value of shape \(batch, length, featu"):
        layer(np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(tp.ShapeError, match=r"attention_mask has shape \(2, 3, 2\), which does not broadc"):
        layer(x, x, attention_mask=np.ones((2, 3, 2), dtype=bool))
    with pytest.raises(tp.ArgumentError, match=r"^MultiHeadAttention: use_causal_mask must be True or False"):
        layer(x, x, use_causal_mask="yes")
    with pytest.raises(tp.DTypeError, match=r"attention_mask must be boolean .*got float64"):
        layer(x, x, attention_mask=np.ones((2, 3, 3)))


def test_errors_inside_a_model_name_the_layer_path(backend):
    class Block(tp.nn.Module):
        def __init__(self):
            self.norm = tp.nn.LayerNorm()
            self.attention = tp.nn.MultiHeadAttention(2, 2)

        def forward(self, x, context):
            return self.attention(self.norm(x), context)

    block = Block()
    block(np.ones((1, 2, 4)), np.ones((1, 3, 6)))
    with pytest.raises(tp.ShapeError, match=r"^MultiHeadAttention 'attention': expected 4, 6 and 6 features"):
        block(np.ones((1, 2, 4)), np.ones((1, 3, 5)))
