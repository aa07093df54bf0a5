"""Versions: the distribution's, and the extension API version plugins declare they target."""

__version__ = "0.1.0"

#: Plugins set ``tensorplug_api_version = API_VERSION`` in their plugin module; a different
#: value is refused with a clear message. Bumped only on a breaking change of tensorplug.extend.
API_VERSION = 1
