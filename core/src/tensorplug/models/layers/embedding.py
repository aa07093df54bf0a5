"""``tp.nn.Embedding``: a table of vectors looked up by integer ids (``tp.nn.embedding``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensorplug.core import validate as valid
from tensorplug.core.tensor import Tensor
from tensorplug.core.variable import Variable
from tensorplug.dtypes import float32
from tensorplug.errors import ArgumentError, DTypeError, ShapeError, TensorplugError
from tensorplug.families._common.convert import asarray
from tensorplug.families.creation import key_samplers
from tensorplug.families.creation.random import uniform
from tensorplug.models.initializers import Initializer
from tensorplug.models.layers import arguments as args
from tensorplug.models.layers.inputs import drawn
from tensorplug.models.module import Module
from tensorplug.ops.attention import embedding

__all__ = ["Embedding"]


def keras_uniform(shape: int | Sequence[int], dtype: Any = float32, *, seed: int | None = None,
                  key: Tensor | None = None) -> Tensor:
    """Keras's embeddings initializer: samples uniform in [-0.05, 0.05), from `key` or `seed`."""
    dt = valid.dtype(dtype, "Embedding")
    source = args.seed_or_key(seed, key, "Embedding")
    if isinstance(source, Tensor):
        return key_samplers.uniform(source, shape, dt, -0.05, 0.05)
    return uniform(shape, seed=source, low=-0.05, high=0.05, dtype=dt)


class Embedding(Module):
    """A trainable table ``embeddings`` of shape (num_embeddings, features) (Keras's
    ``Embedding(input_dim, output_dim)``, PyTorch's ``nn.Embedding(num_embeddings,
    embedding_dim)``): integer ids of any shape give ids.shape + (features,), the rows at the
    ids. The table starts uniform in [-0.05, 0.05) as Keras's (or from
    `embeddings_initializer`, called as ``init(shape, dtype, seed=seed)``, or ``key=key`` when
    the layer is given a key instead of a seed), in `dtype`. A key is not kept (``seed`` is
    None then)."""

    def __init__(self, num_embeddings: int, features: int, *,
                 embeddings_initializer: Initializer | None = None, dtype: Any = float32,
                 seed: int | None = None, key: Tensor | None = None) -> None:
        self.num_embeddings = args.positive_int(num_embeddings, "Embedding", "num_embeddings")
        self.features = args.positive_int(features, "Embedding", "features")
        source = args.seed_or_key(seed, key, "Embedding")
        self.seed = None if isinstance(source, Tensor) else source
        init = keras_uniform if embeddings_initializer is None else embeddings_initializer
        valid.function(init, "Embedding", "embeddings_initializer")
        dt = valid.dtype(dtype, "Embedding")
        if not dt.is_floating:
            raise DTypeError(f"Embedding: dtype must be a floating dtype (the table's), got {dt.name}; e.g. "
                             "tp.float32.")
        shape = (self.num_embeddings, self.features)
        try:
            table = asarray(drawn(init, shape, dt, source))
        except TypeError as exc:  # (a function of another signature: ArgumentError, not a raw TypeError)
            if isinstance(exc, TensorplugError):
                raise
            raise ArgumentError(f"Embedding: embeddings_initializer {valid.shown(init)} must take (shape, "
                                f"dtype, *, seed) (and key= for a key), as tp.nn.initializers' do; "
                                f"calling it raised {exc}") from exc
        if table.shape != shape:
            raise ShapeError(f"Embedding: embeddings_initializer gave shape {table.shape}, not the table's "
                             f"{shape}.")
        self.embeddings = Variable(table)

    def forward(self, ids: Any) -> Tensor:
        """The rows of the table at `ids` (integers in [0, num_embeddings)), shape ids.shape + (features,)."""
        ids = asarray(ids)
        if not ids.dtype.is_integer:
            raise DTypeError(f"ids must be integers (row numbers in [0, {self.num_embeddings})), got "
                             f"{ids.dtype.name}; cast them with ids.astype(tp.int64).")
        return embedding(ids, self.embeddings)
