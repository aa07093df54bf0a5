"""tensorplug's testing kit: registry isolation and a numerical gradient checker."""

from .gradcheck import check_gradients
from .isolation import isolated_registries

__all__ = ["check_gradients", "isolated_registries"]
