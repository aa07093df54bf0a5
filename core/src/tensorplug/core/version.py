"""Versions: the distribution's, the extension API version plugins declare they target, and the
Array API standard's versions tensorplug implements."""

__version__ = "0.1.0"

#: Plugins set ``tensorplug_api_version = API_VERSION`` in their plugin module; a different
#: value is refused with a clear message. Bumped only on a breaking change of tensorplug.extend.
API_VERSION = 1

#: The Array API standard's revisions tensorplug implements, oldest first; the last is
#: ``tp.__array_api_version__``, and ``Tensor.__array_namespace__`` accepts each.
ARRAY_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
