"""Plugin discovery and loading: entry points of group ``tensorplug``, scanned lazily once per
process, each plugin isolated (a broken one is reported and rolled back; the rest keep working).

Phases: import and register every plugin with pluggy, then, for all of them in turn, kernel
specs, backends, gradients, ops; a backend's kernels when that backend starts. Environment:
``TENSORPLUG_STRICT_PLUGINS=1`` raises on any plugin problem (and raises it again at every use
until the environment is fixed), ``TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD=1``
loads no entry point (plugins can still be registered by hand).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from tensorplug.core.runtime import Runtime, current, use_runtime
from tensorplug.core.version import API_VERSION
from tensorplug.errors import PluginError, RegistrationError
from tensorplug.plugins import hookspecs
from tensorplug.plugins.problems import (
    ENV_STRICT,
    PluginInfo,
    PluginProblem,
    deferring_strict_errors,
    plugin_state,
    raise_problems,
    report,
    report_backend_failure,
    strict,
)
from tensorplug.registry import backends as _backends
from tensorplug.registry import batching as _batching
from tensorplug.registry import gradients as _gradients
from tensorplug.registry import jvps as _jvps
from tensorplug.registry import kernels as _kernels
from tensorplug.registry import onnx_lowerings as _onnx
from tensorplug.registry import ops as _ops
from tensorplug.registry import specs as _specs
from tensorplug.registry._slots import registering_as

__all__ = [
    "ENTRY_POINT_GROUP", "PluginInfo", "PluginProblem", "load_plugins", "register_plugin",
    "unregister_plugin", "list_plugins", "plugin_problems", "contributions", "register_backend_kernels",
    "report_backend_failure", "offered_by_unstarted_backends", "ask_plugins", "ENV_STRICT", "ENV_DISABLE",
]

ENTRY_POINT_GROUP = "tensorplug"
#: What a plugin raising while it loads is isolated from: any exception, SystemExit included
#: (a plugin calling sys.exit() must not end the program); KeyboardInterrupt still interrupts.
_PLUGIN_FAILURES = (Exception, SystemExit)
ENV_DISABLE = "TENSORPLUG_DISABLE_PLUGIN_AUTOLOAD"
_PHASES = ("tensorplug_kernel_specs", "tensorplug_backends", "tensorplug_gradients", "tensorplug_jvps",
           "tensorplug_batching_rules", "tensorplug_onnx_lowerings", "tensorplug_ops")


# -- the register callables handed to hooks --------------------------------------------------
def _checked(kind: type, target: Callable[..., Any], hook: str) -> Callable[..., Any]:
    def register(config: Any, *, override: bool = False, priority: int | None = None) -> Any:
        if not isinstance(config, kind):
            raise RegistrationError(
                f"{hook} passed a {type(config).__name__} to register(); it takes a {kind.__name__}."
            )
        if priority is None:  # the target's default (for a backend: its config's priority)
            return target(config, override=override)
        return target(config, override=override, priority=priority)
    return register


def _registrar(hook: str, backend_name: str | None = None) -> Callable[..., Any]:
    if hook == "tensorplug_kernel_specs":
        return _checked(_specs.KernelSpec, _specs.register_kernel_spec, hook)
    if hook == "tensorplug_backends":
        return _checked(_backends.BackendConfig, _backends.register_backend, hook)
    if hook == "tensorplug_gradients":
        return _checked(_gradients.GradConfig, _gradients.register_gradient, hook)
    if hook == "tensorplug_jvps":
        return _checked(_jvps.JvpConfig, _jvps.register_jvp, hook)
    if hook == "tensorplug_batching_rules":
        return _checked(_batching.BatchConfig, _batching.register_batching_rule, hook)
    if hook == "tensorplug_onnx_lowerings":
        return _checked(_onnx.OnnxLowering, _onnx.register_onnx_lowering, hook)
    if hook == "tensorplug_ops":
        return _checked(_ops.OpConfig, _ops.register_op, hook)

    def register_kernel(config: Any, *, override: bool = False, priority: int | None = None) -> Any:
        if isinstance(config, _kernels.KernelConfig) and config.backend_name != backend_name:
            raise RegistrationError(
                f"tensorplug_kernels was called for backend '{backend_name}' but registered a kernel "
                f"for '{config.backend_name}' ({config.kernel_name}); register each backend's "
                "kernels when the hook is called with its name."
            )
        return _checked(_kernels.KernelConfig, _kernels.register_kernel, hook)(
            config, override=override, priority=priority)
    return register_kernel


def _call_hook(info: PluginInfo, hook: str, register: Callable[..., Any] | None = None,
               **kwargs: Any) -> None:
    """Call one plugin's implementation of `hook`, with registrations attributed to it."""
    caller = getattr(plugin_state().pm.hook, hook)
    register = register or _registrar(hook, kwargs.get("backend_name"))
    for impl in caller.get_hookimpls():
        if impl.plugin_name != info.name:
            continue
        args = {"register": register, **kwargs}
        with registering_as(info.name):
            result = impl.function(**{k: args[k] for k in impl.argnames})
            if result is not None:
                if not isinstance(result, Iterable) or isinstance(result, (str, bytes)):
                    raise RegistrationError(
                        f"{hook} returned a {type(result).__name__}; a hook registers through its "
                        "`register` argument, or returns a list of configs."
                    )
                for config in result:
                    register(config)


def _roll_back(name: str, backend_name: str | None = None) -> None:
    """Remove what plugin `name` registered (only its kernels for `backend_name`, if given)."""
    runtime = current()
    for (k, b), stack in runtime.kernels.registrations():
        if (backend_name is None or b == backend_name) and any(r.source == name for r in stack):
            _kernels.unregister_kernel(k, b, source=name)  # (disposes it on a started backend)
    if backend_name is not None:
        return
    for table in (runtime.gradients, runtime.jvps, runtime.batching, runtime.onnx_lowerings, runtime.ops,
                  runtime.specs):
        table.remove_source(name)
    for backend_name_, backend_stack in runtime.backends.registrations():
        if any(r.source == name for r in backend_stack):
            _backends.unregister_backend(backend_name_, source=name)


def _activate(infos: list[PluginInfo]) -> None:
    for hook in _PHASES:
        for info in infos:
            if not info.active:
                continue
            try:
                _call_hook(info, hook)
            except _PLUGIN_FAILURES as exc:
                _deactivate(info)
                report(info, f"hook {hook}", exc,
                        "Fix the plugin or uninstall its distribution; everything it registered was "
                        "rolled back.")
    for info in infos:
        if info.active:
            for backend_name in list(current().instances):
                _kernels_for(info, backend_name)


def _deactivate(info: PluginInfo) -> None:
    info.active = False
    _roll_back(info.name)
    pm = plugin_state().writable_pm()
    if pm.has_plugin(info.name):
        pm.unregister(name=info.name)


def _kernels_for(info: PluginInfo, backend_name: str) -> None:
    try:
        _call_hook(info, "tensorplug_kernels", backend_name=backend_name)
    except _PLUGIN_FAILURES as exc:
        _roll_back(info.name, backend_name)
        report(info, f"hook tensorplug_kernels (backend '{backend_name}')", exc,
                "Fix the plugin or uninstall its distribution; its kernels for this backend were "
                "rolled back.")


def offered_by_unstarted_backends(kernel_name: str) -> list[str]:
    """The registered backends, not started yet, whose plugins would register `kernel_name`
    when they start: their kernels hooks are asked with a register that only collects (no
    backend starts; a plugin may import its library). For error messages."""
    with use_runtime(current().copy()) as runtime:  # (a hook registering by hand: thrown away)
        return _offered(runtime, kernel_name)


def _offered(runtime: Runtime, kernel_name: str) -> list[str]:
    found = []
    for backend_name in sorted(runtime.backends.active):
        if backend_name in runtime.instances:
            continue
        names: set[str] = set()

        def collect(config: Any, *, override: bool = False, priority: int | None = None,
                    into: set[str] = names, wanted: str = backend_name) -> None:
            if isinstance(config, _kernels.KernelConfig) and config.backend_name == wanted:
                into.add(config.kernel_name)

        for info in list(plugin_state().plugins.values()):
            if not info.active:
                continue
            for impl in plugin_state().pm.hook.tensorplug_kernels.get_hookimpls():
                if impl.plugin_name != info.name:
                    continue
                args = {"register": collect, "backend_name": backend_name}
                try:
                    returned = impl.function(**{k: args[k] for k in impl.argnames})
                    if isinstance(returned, Iterable):  # (a hook may return its configs)
                        for config in returned:
                            collect(config)
                except Exception:  # (a broken hook is reported when the backend starts)
                    continue
        if kernel_name in names:
            found.append(backend_name)
    return found


def ask_plugins(hook: str, register: Callable[..., Any]) -> list[str]:
    """Call `hook` of every active plugin, by name, with `register` (what each registers is
    attributed to it): for hooks asked on demand, not when plugins load (the testing kit's
    ``tensorplug_references``). A hook that raises is a PluginError naming the plugin. Returns
    the names of the plugins asked."""
    load_plugins()
    asked = []
    for info in sorted(plugin_state().plugins.values(), key=lambda i: i.name):
        if not info.active:
            continue
        try:
            _call_hook(info, hook, register)
        except PluginError:
            raise
        except _PLUGIN_FAILURES as exc:
            raise PluginError(
                f"Plugin '{info.name}' (distribution {info.distribution or 'unknown'}): its {hook} hook "
                f"raised {type(exc).__name__}: {exc}. Fix the plugin, or uninstall its distribution."
            ) from exc
        asked.append(info.name)
    return asked


def register_backend_kernels(backend_name: str) -> None:
    """Every active plugin registers its kernels for `backend_name`, which is starting: the
    plugin that registered the backend first, so that a third party's conflicting kernel is
    the one refused, whatever the plugins' names."""
    owner = current().backends.registration(backend_name)
    first = owner.source if owner is not None else None
    infos = sorted((i for i in plugin_state().plugins.values() if i.active), key=lambda i: i.name != first)
    with deferring_strict_errors():
        for info in infos:
            if info.active:
                _kernels_for(info, backend_name)


def _admit(info: PluginInfo, module: Any) -> bool:
    """Version check and pluggy registration; True if the plugin may take part."""
    declared = getattr(module, "tensorplug_api_version", None)
    if declared != API_VERSION:
        what = "does not declare tensorplug_api_version" if declared is None else (
            f"was built for tensorplug API version {declared}")
        report(info, "API version check",
                f"it {what}, and this tensorplug-core has API version {API_VERSION}",
                f"Install a release of the plugin built for API version {API_VERSION} (or set "
                f"`tensorplug_api_version = {API_VERSION}` in its plugin module if it is yours).")
        return False
    state = plugin_state()
    try:
        state.writable_pm().register(module, name=info.name)
    except Exception as exc:
        other = state.plugins.get(info.name)
        fix = ("Another plugin already has this name" + (f" (from {other.distribution})" if other else "")
               + "; rename one entry point.") if isinstance(exc, ValueError) else (
            "Fix the hook implementations (names and arguments must match tensorplug's hookspecs).")
        report(info, "registration with pluggy", exc, fix)
        return False
    unknown = sorted(c.name for c in state.pm.get_hookcallers(module) or () if c.spec is None)
    if unknown:  # a misspelled hook would otherwise be silently ignored
        state.writable_pm().unregister(module)
        known = [n for n in dir(hookspecs) if n.startswith("tensorplug_")]
        hints = [f"'{n}' (did you mean {difflib.get_close_matches(n, known, n=1)[0]!r}?)"
                 if difflib.get_close_matches(n, known, n=1) else f"'{n}'" for n in unknown]
        report(info, "registration with pluggy", f"it implements unknown hook(s) {', '.join(hints)}",
                f"Implement only tensorplug's hooks: {', '.join(known)}.")
        return False
    info.active = True
    return True


def load_plugins() -> None:
    """Discover and load entry-point plugins; idempotent, runs once per runtime (process). In
    strict mode, a plugin problem met once is raised again at every call."""
    state = plugin_state()
    if state.loaded:
        if state.strict_error is not None and strict():
            raise state.strict_error
        return
    with state.lock:  # (another thread loading: wait for it to finish)
        if state.loaded or state.loading:  # (loading: re-entered by this thread, from a hook)
            return
        state.loading = True
        try:
            if os.environ.get(ENV_DISABLE, "").lower() in ("", "0", "false", "no"):
                with deferring_strict_errors():
                    _load_entry_points()
        finally:
            state.loading = False
            state.loaded = True  # (only now: other threads see every plugin loaded)


def _load_entry_points() -> None:
    """Import, admit and activate every entry point of the group, each plugin isolated."""
    from importlib_metadata import entry_points  # (heavy to load: only when plugins are scanned)

    state = plugin_state()
    admitted = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        info = PluginInfo(ep.name, distribution=dist.name if dist else None,
                          version=dist.version if dist else None)
        if ep.name in state.plugins:
            report(info, "discovery", f"the plugin name '{ep.name}' is already taken by "
                    f"{state.plugins[ep.name].distribution}", "Rename one entry point.")
            continue
        state.plugins[ep.name] = info
        try:
            module = ep.load()
        except _PLUGIN_FAILURES as exc:
            report(info, "import", exc, f"Fix or reinstall {info.distribution or 'the plugin'}, "
                    "or uninstall it; the other plugins keep working.")
            continue
        info.module = module
        if _admit(info, module):
            admitted.append(info)
    _activate(admitted)


def register_plugin(plugin: ModuleType | object, name: str | None = None) -> PluginInfo:
    """Register a plugin by hand (a module or object with hook implementations). Raises on any
    problem, since the caller is right there to fix it."""
    load_plugins()
    name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
    state = plugin_state()
    with state.lock:
        if name in state.plugins and state.plugins[name].active:
            if state.plugins[name].module is plugin:
                return state.plugins[name]
            raise RegistrationError(f"a plugin named '{name}' is already registered; pass another name=")
        info = PluginInfo(name, module=plugin, origin="registered by hand")
        state.plugins[name] = info
        token = raise_problems.set(True)
        try:
            if _admit(info, plugin):
                _activate([info])
        except PluginError:
            state.plugins.pop(name, None)
            raise
        finally:
            raise_problems.reset(token)
        return info


def unregister_plugin(name: str) -> None:
    """Remove a plugin and everything it registered; overridden core entries come back."""
    state = plugin_state()
    with state.lock:
        info = state.plugins.get(name)
        if info is None:
            raise RegistrationError(f"no plugin named '{name}'; known: {sorted(state.plugins)}")
        _deactivate(info)
        del state.plugins[name]


def _load_for_a_look() -> None:
    """Load the plugins (once) for introspection: the strict-mode error they met is what is
    looked at, not raised again."""
    try:
        load_plugins()
    except PluginError as exc:
        if exc is not plugin_state().strict_error:
            raise


def list_plugins() -> list[PluginInfo]:
    """Every plugin loaded so far (its name, distribution, version), loading them on first call."""
    _load_for_a_look()
    return list(plugin_state().plugins.values())


def plugin_problems() -> list[PluginProblem]:
    """Every plugin problem found so far (import failure, version mismatch, conflict, a hook
    that raised), loading plugins on first call."""
    _load_for_a_look()
    return list(plugin_state().problems)


def contributions(source: str) -> dict[str, list[str]]:
    """What `source` (a plugin name) has registered, by kind."""
    def owned(table: Any) -> list[str]:
        return sorted(
            "/".join(k) if isinstance(k, tuple) else str(k)
            for k, stack in table.registrations() if any(r.source == source for r in stack)
        )
    return {f"{what}s": owned(table) for what, table in current().tables().items()}
