"""Backends: their registry and lifecycle (``tp.set_backend``), the ``Backend`` contract, devices."""
