"""``tensorplug doctor`` in strict mode (TENSORPLUG_STRICT_PLUGINS=1) with a plugin whose backend
fails to start (issue 37): whatever the broken backend's priority (below the numpy backend's,
above it), doctor prints its report, names the broken plugin and its cause, and blames no
first-party backend (no advice to uninstall tensorplug-backend-numpy); exit status 1."""

from __future__ import annotations

import re

import pytest

from _toy_dist import forget, make_dist
from tensorplug.cli import main
from tensorplug.testing.isolation import fresh_plugin_discovery

STRICT = "TENSORPLUG_STRICT_PLUGINS"


def _failing_backend(priority: int) -> str:
    return f"""
@hookimpl
def tensorplug_backends(register):
    def start():
        raise OSError("the device is gone")
    register(BackendConfig("toyfail", start, priority={priority}))
"""


@pytest.mark.parametrize("priority", [0, 10])
def test_doctor_in_strict_mode_names_the_broken_backends_plugin(tmp_path, monkeypatch, capsys, priority):
    for var in ("TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD", "TENSORPLUG_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(STRICT, "1")
    monkeypatch.syspath_prepend(str(tmp_path))
    with fresh_plugin_discovery():
        toy = make_dist(tmp_path, _failing_backend(priority), name="strict-backend")
        try:
            code = main(["doctor"])
        finally:
            forget(toy)
    out = capsys.readouterr().out
    assert code == 1
    assert "tensorplug doctor: 1 problem" in out and f"environment: {STRICT}=1" in out
    assert f"[backend failed to start] backend 'toyfail' (registered by {toy.entry_name} (" in out
    assert "OSError: the device is gone" in out and f"or uninstall {toy.entry_name} (" in out
    assert "backend 'numpy' failed to start" not in out and "tensorplug-backend-numpy 0.1.0);" not in out
    assert re.search(r"backends? started \(.*numpy", out)
