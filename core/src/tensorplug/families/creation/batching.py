"""Batching rules of the creation family: Threefry2x32 is elementwise over its broadcast words
(a batch of keys, or of counters, is one call); the kernels without tensor inputs need none."""

from __future__ import annotations

from tensorplug.families._common.batching_util import elementwise

elementwise("Threefry2x32")
