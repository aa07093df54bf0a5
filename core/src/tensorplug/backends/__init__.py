"""Backends: their lifecycle (``tp.set_backend``; their registry is ``registry.backends``), the
``Backend`` contract, devices."""
