"""tensorplug's testing kit: registry isolation and a numerical gradient checker."""

from .isolation import isolated_registries

__all__ = ["isolated_registries"]
