"""Batching rules of the neural-network kernels: softmaxes along a shifted axis."""

from __future__ import annotations

from ._util import with_axes

with_axes("Softmax", "LogSoftmax")
