"""The runtime: the one object holding everything tensorplug keeps between calls: the registries
(kernel specs, kernels, gradients, JVP rules, batching rules, ops, backends), the started
backends and the plugin manager's state (pluggy keeps all of its own on one ``PluginManager``;
tensorplug does the same).

Code reaches it through ``current()``, and only through its attributes and methods. Tests and
the conformance kit swap another in with ``use_runtime`` (``tensorplug.testing`` has fixtures
for it); versions of its registries are unique across runtimes, so a dispatcher bound under one
runtime binds again under the next.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from tensorplug.errors import PluginError
from tensorplug.plugins import hookspecs
from tensorplug.registry._slots import CORE_SOURCE, Registration, SlotTable, new_version

if TYPE_CHECKING:
    from tensorplug.backends.lifecycle import Backend, BackendConfig
    from tensorplug.kernels.kernel_spec import KernelSpec
    from tensorplug.plugins.manager import PluginInfo, PluginProblem
    from tensorplug.registry.batching import BatchConfig
    from tensorplug.registry.gradients import GradConfig
    from tensorplug.registry.jvps import JvpConfig
    from tensorplug.registry.kernel_config import KernelConfig
    from tensorplug.registry.onnx_lowerings import OnnxLowering
    from tensorplug.registry.ops import OpConfig

__all__ = ["Runtime", "PluginState", "current", "use_runtime", "RULE_TABLES"]

PROJECT_NAME = "tensorplug"  # pluggy's project name: hook markers and specs carry it

#: the registries of per-kernel rules, by attribute: what they hold and how messages name a key.
#: A runtime makes them at the first read of one (``Runtime.rule_tables``), when ``load_rules``'
#: loaders fill them: the core's rules are ~90 modules few programs need at once (issue 37).
RULE_TABLES = {"gradients": ("gradient", "Gradient of kernel '{}'"),
               "jvps": ("JVP rule", "JVP rule of kernel '{}'"),
               "batching": ("batching rule", "Batching rule of kernel '{}'"),
               "onnx_lowerings": ("ONNX lowering", "ONNX lowering of kernel '{}'")}
RuleLoader = Callable[[dict[str, SlotTable[Any, Any]]], None]  # fills new rule tables, by attribute
_RULES_LOCK = threading.RLock()  # (a second thread waits for the tables whole)


class _RuleTable:
    """A runtime's table of one kind of rule, read through ``Runtime.rule_tables`` (a class
    ``__getattr__`` would instead slow every read of every runtime attribute)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, runtime: Runtime | None, owner: type | None = None) -> Any:
        if runtime is None:
            return self
        tables = runtime._rule_tables
        return (tables if tables is not None else runtime.rule_tables())[self.name]

    def __set__(self, runtime: Runtime, table: SlotTable[str, Any]) -> None:
        runtime.rule_tables()[self.name] = table


def new_plugin_manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    return pm


@dataclass
class PluginState:
    """The plugin manager's state: pluggy's manager, the plugins tensorplug knows of (by name),
    the problems met loading them, whether the entry points were scanned, and in strict mode
    the error met (raised at every use until the environment is fixed)."""

    #: pluggy's manager (made on first use: ``pm``)
    manager: pluggy.PluginManager | None = None
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    problems: list[PluginProblem] = field(default_factory=list)
    loaded: bool = False
    loading: bool = False  # (the entry points are being loaded, by the thread holding `lock`)
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: in strict mode, the PluginError met loading plugins: raised again at every use
    strict_error: PluginError | None = None
    #: `pm` is another state's too (a copy's): `writable_pm` gives this state one of its own
    shared_pm: bool = False

    @property
    def pm(self) -> pluggy.PluginManager:
        """Pluggy's manager, with tensorplug's hook specs (to read: see ``writable_pm``)."""
        if self.manager is None:
            self.manager = new_plugin_manager()
        return self.manager

    def copy(self) -> PluginState:
        """The same plugins and problems, sharing pluggy's manager until either state registers
        or unregisters a plugin (``writable_pm``)."""
        self.shared_pm = self.manager is not None
        plugins = {n: dataclasses.replace(i) for n, i in self.plugins.items()}
        return PluginState(manager=self.manager, plugins=plugins, problems=list(self.problems),
                           loaded=self.loaded, strict_error=self.strict_error, shared_pm=self.shared_pm)

    def writable_pm(self) -> pluggy.PluginManager:
        """Pluggy's manager, made this state's own first if it is shared: call before
        registering or unregistering a plugin with it."""
        if self.shared_pm:
            pm = new_plugin_manager()
            for name, plugin in self.pm.list_name_plugin():
                if name is not None and plugin is not None:
                    pm.register(plugin, name=name)
            self.manager, self.shared_pm = pm, False
        return self.pm


class Runtime:
    """Registries, started backends and plugins: the whole of tensorplug's global state."""

    #: the rule tables (``RULE_TABLES``), made at the first read of one
    if TYPE_CHECKING:
        gradients: SlotTable[str, GradConfig]
        jvps: SlotTable[str, JvpConfig]
        batching: SlotTable[str, BatchConfig]
        onnx_lowerings: SlotTable[str, OnnxLowering]
    else:
        gradients = _RuleTable()
        jvps = _RuleTable()
        batching = _RuleTable()
        onnx_lowerings = _RuleTable()

    def __init__(self) -> None:
        self.specs: SlotTable[str, KernelSpec] = SlotTable("kernel spec", lambda k: f"Kernel spec '{k}'")
        self.kernels: SlotTable[tuple[str, str], KernelConfig] = SlotTable(
            "kernel", lambda k: f"Kernel '{k[0]}' for backend '{k[1]}'")
        #: the rule tables, by attribute, once made; what fills them then (``load_rules``)
        self._rule_tables: dict[str, SlotTable[Any, Any]] | None = None
        self.rule_loaders: list[RuleLoader] = []
        self.ops: SlotTable[str, OpConfig] = SlotTable("op", lambda k: f"Op '{k}'")
        self.backends: SlotTable[str, BackendConfig] = SlotTable("backend", lambda k: f"Backend '{k}'")
        #: started backends, by name; backends being started (by the thread holding
        #: `start_lock`: kernel setup sees them, other threads only once their kernels are in)
        self.instances: dict[str, Backend] = {}
        self.starting: dict[str, Backend] = {}
        self.start_lock = threading.RLock()
        #: the backend threads use until they choose one (None: the highest priority that starts)
        self.default_backend: str | None = None
        self.plugins = PluginState()
        #: registrants already told that their kernels' function attributes are ignored
        self.warned_legacy: set[str] = set()
        #: kernels whose vmap loop fallback was warned about (once each)
        self.warned_loops: set[str] = set()
        #: caches of what the registries say (a copy starts them empty): backward's plan of each
        #: kernel's gradient (transforms/autodiff/tape.py), by kernel name; vmap's batching levels not in
        #: use (transforms/vmap/api.py), by the backend beneath and batch size
        self.grad_plans: dict[str, Any] = {}
        self.vmap_levels: dict[tuple[Backend, int], Any] = {}

    def rule_tables(self) -> dict[str, SlotTable[Any, Any]]:
        """The rule tables by attribute, made (and filled by the loaders) at the first call."""
        with _RULES_LOCK:
            if self._rule_tables is None:
                tables: dict[str, SlotTable[Any, Any]] = {
                    n: SlotTable(what, key.format) for n, (what, key) in RULE_TABLES.items()}
                for loader in self.rule_loaders:
                    loader(tables)
                self.rule_loaders = []
                self._rule_tables = tables
            return self._rule_tables

    def load_rules(self, loader: RuleLoader) -> None:
        """Have `loader` fill the rule tables when they are made, at the first read of one (at
        once if they are made already)."""
        with _RULES_LOCK:
            if self._rule_tables is not None:
                loader(self._rule_tables)
            else:
                self.rule_loaders.append(loader)

    def tables(self) -> dict[str, SlotTable[Any, Any]]:
        """Every registry, by what it holds ('backend', 'kernel spec', 'kernel', 'gradient',
        'JVP rule', 'batching rule', 'ONNX lowering', 'op')."""
        return {t.what: t for t in (self.backends, self.specs, self.kernels, self.gradients, self.jvps,
                                    self.batching, self.onnx_lowerings, self.ops)}

    def copy(self) -> Runtime:
        """A runtime of its own with the same registrations, started backends (the same
        instances), default backend and plugins: what it changes stays in it."""
        runtime = Runtime()
        runtime._take_tables(self, None)
        runtime.instances = dict(self.instances)
        runtime.default_backend = self.default_backend
        runtime.plugins = self.plugins.copy()
        runtime.warned_legacy = set(self.warned_legacy)
        runtime.warned_loops = set(self.warned_loops)
        return runtime

    def core_only(self) -> Runtime:
        """A runtime holding the core's registrations alone: no plugin loaded (the next backend
        use scans the entry points), no backend started."""
        runtime = Runtime()
        runtime._take_tables(self, lambda r: r.source == CORE_SOURCE)
        return runtime

    def _take_tables(self, other: Runtime, keep: Any) -> None:
        for name, table in other.tables().items():
            mine = table.copy(keep)
            setattr(self, _ATTRIBUTES[name], mine)

    def registrations_by(self, source: str) -> dict[str, list[Registration[Any]]]:
        """What `source` registered, by registry."""
        return {what: [r for _, stack in table.registrations() for r in stack if r.source == source]
                for what, table in self.tables().items()}


_ATTRIBUTES = {"kernel spec": "specs", "kernel": "kernels", "gradient": "gradients", "JVP rule": "jvps",
               "batching rule": "batching", "ONNX lowering": "onnx_lowerings", "op": "ops",
               "backend": "backends"}


class _Active:
    """Which runtime is in use (one per process, as pluggy's manager is one per project)."""

    __slots__ = ("runtime",)

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime


ACTIVE = _Active(Runtime())


def current() -> Runtime:
    """The runtime in use."""
    return ACTIVE.runtime


@contextlib.contextmanager
def use_runtime(runtime: Runtime) -> Iterator[Runtime]:
    """Use `runtime` inside the block (in the whole process), the previous one again after it."""
    previous = ACTIVE.runtime
    ACTIVE.runtime = runtime
    new_version()  # what caches learned from the previous runtime's registries is out of date
    try:
        yield runtime
    finally:
        ACTIVE.runtime = previous
        new_version()
