"""Plugin discovery and loading (entry point group ``tensorplug``) on pluggy."""
