"""tensorplug's testing kit: a numerical gradient checker and registry isolation for tests."""

from .gradcheck import check_gradients
from .isolation import fresh_plugin_discovery, isolated_registries

__all__ = ["check_gradients", "fresh_plugin_discovery", "isolated_registries"]
