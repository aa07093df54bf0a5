"""References plugins give the kit through their ``tensorplug_references`` hook, so that
``opcheck`` and the conformance suite find them with the plugin installed (no ``-p module``).

The hook is asked when the kit first needs a reference, once per runtime and set of active
plugins (a plugin never imports the kit at load). A plugin's reference for a kernel the kit
already knows needs ``override=True``; two plugins giving one kernel's reference is an error
naming both, as for every registry.
"""

from __future__ import annotations

import weakref

from tensorplug.core.runtime import Runtime, current
from tensorplug.errors import RegistrationError
from tensorplug.plugins.manager import ask_plugins, load_plugins
from tensorplug.registry._slots import SlotTable, current_source
from tensorplug.testing.references import _base
from tensorplug.testing.references._base import Reference, check_reference

__all__ = ["get_reference", "plugin_references"]

HOOK = "tensorplug_references"
# per runtime: (the active plugins asked, what they gave)
_asked: weakref.WeakKeyDictionary[Runtime, tuple[tuple[str, ...], SlotTable[str, Reference]]] = (
    weakref.WeakKeyDictionary())


def plugin_references() -> SlotTable[str, Reference]:
    """The references the active plugins give, by kernel name (each remembering its plugin)."""
    load_plugins()
    runtime = current()
    active = tuple(sorted(name for name, info in runtime.plugins.plugins.items() if info.active))
    found = _asked.get(runtime)
    if found is not None and found[0] == active:
        return found[1]
    table: SlotTable[str, Reference] = SlotTable("reference", lambda k: f"The kit's reference for '{k}'")

    def register(ref: Reference, *, override: bool = False, priority: int | None = None) -> Reference:
        check_reference(ref, f"{HOOK}'s register()")
        own = _base.REFERENCES.get(ref.kernel)
        if own is not None and own != ref and not override:
            raise RegistrationError(
                f"plugin '{current_source()}' gives the kit a reference for '{ref.kernel}', which the "
                "kit already has; give references for your own kernel specs, or pass override=True "
                "to replace the kit's."
            )
        table.add(ref.kernel, ref, override=override, priority=priority or 0)
        return ref

    ask_plugins(HOOK, register)
    _asked[runtime] = (active, table)
    return table


def get_reference(kernel_name: str) -> Reference | None:
    """The kit's reference for `kernel_name`: a plugin's (from its hook), else the kit's own or
    one given with ``register_reference``; None if there is none."""
    return plugin_references().active.get(kernel_name) or _base.REFERENCES.get(kernel_name)
