"""Which dtypes the conformance kit tests a backend in: those it declares
(``BackendConfig.dtypes``), or, for a backend that declares none, those a round trip through its
``from_numpy`` and ``to_numpy`` keeps (found once per backend instance), narrowed per kernel by
its ``KernelConfig.dtypes``; and why each other dtype is skipped."""

from __future__ import annotations

import contextlib
import re
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from tensorplug.backends.contract import Backend
from tensorplug.backends.held_dtypes import describe_dtypes
from tensorplug.dtypes import ALL_DTYPES, STANDARD_DTYPES, DType
from tensorplug.testing.inputs import Case, sample

__all__ = ["HeldDtypes", "held_dtypes", "probe_dtypes", "runs_in"]

_PROBED: weakref.WeakKeyDictionary[Backend, HeldDtypes] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class HeldDtypes:
    """The dtypes a backend holds (``dtypes``), whether it declared them or the kit found them
    (``declared``), and why each other dtype is left out (``skipped``: dtype -> reason)."""

    backend: str
    dtypes: frozenset[DType]
    declared: bool
    skipped: Mapping[DType, str] = field(default_factory=dict)

    def narrowed(self, dtypes: Iterable[DType] | None, kernel: str) -> HeldDtypes:
        """These dtypes narrowed by a kernel's ``KernelConfig.dtypes`` (None: as they are)."""
        if dtypes is None:
            return self
        kept = self.dtypes & frozenset(dtypes)
        why = f"not in the dtypes of {kernel}'s KernelConfig"
        skipped = {**self.skipped, **{d: why for d in self.dtypes - kept}}
        return HeldDtypes(self.backend, kept, self.declared, skipped)

    def declaration(self) -> str:
        """How to declare the dtypes found, in the backend's plugin."""
        if set(ALL_DTYPES) <= self.dtypes:
            names = "tensorplug.dtypes.ALL_DTYPES"
        elif self.dtypes == frozenset(STANDARD_DTYPES):
            names = "tensorplug.dtypes.STANDARD_DTYPES"
        else:
            listed = [f"tp.{d.name}" for d in ALL_DTYPES if d in self.dtypes]
            names = f"({', '.join(listed)}{',' if len(listed) == 1 else ''})"
        return f"declare them in its plugin: BackendConfig('{self.backend}', factory, dtypes={names})"

    def reasons(self, dtypes: Iterable[DType]) -> list[str]:
        """'float16, bfloat16: why' for those of `dtypes` skipped, one per reason (a reason
        naming its dtype reads '<dtype>', so that dtypes refused alike share a line)."""
        wanted = set(dtypes)
        by_reason: dict[str, list[DType]] = {}
        for d in ALL_DTYPES:
            if d in wanted:
                why = re.sub(rf"\b{d.name}\b", "<dtype>", self.skipped.get(d, "not held"))
                by_reason.setdefault(why, []).append(d)
        return [f"{', '.join(d.name for d in group)}: "
                f"{why if len(group) > 1 else self.skipped.get(group[0], 'not held')}"
                for why, group in by_reason.items()]

    def lines(self) -> list[str]:
        """What the kit reports: the dtypes checked, those skipped and why, how to declare them."""
        how = "declared" if self.declared else "found by a round trip through from_numpy/to_numpy"
        out = [f"backend '{self.backend}' holds {describe_dtypes(self.dtypes)} ({how}); the kit tests "
               "kernels in those only"]
        out += [f"skipped dtypes {why}" for why in self.reasons(self.skipped)]
        if not self.declared:
            out.append(self.declaration())
        return out


def held_dtypes(backend: Backend) -> HeldDtypes:
    """The dtypes `backend` holds: its declaration, else what ``probe_dtypes`` finds (once per
    backend instance)."""
    if backend.dtypes is not None:
        declared = frozenset(backend.dtypes)
        why = f"not in the BackendConfig(dtypes=...) of backend '{backend.name}'"
        return HeldDtypes(backend.name, declared, True, {d: why for d in ALL_DTYPES if d not in declared})
    try:
        found = _PROBED.get(backend)
    except TypeError:  # (a backend that cannot be weakly referenced: probed every time)
        found = None
    if found is None:
        found = probe_dtypes(backend)
        with contextlib.suppress(TypeError):
            _PROBED[backend] = found
    return found


def probe_dtypes(backend: Backend) -> HeldDtypes:
    """Round-trip a small array of each dtype through ``from_numpy`` and ``to_numpy``: a dtype
    is held where the values and the dtype come back (``dtype_of`` too); any exception, or
    another dtype or other values, says why not."""
    held, skipped = set(), {}
    for dtype in ALL_DTYPES:
        host = sample((3,), dtype, key="dtype probe")
        try:
            native = backend.from_numpy(host)
            got = backend.dtype_of(native)
            back = np.asarray(backend.to_numpy(native))
        except Exception as exc:
            text = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
            skipped[dtype] = f"from_numpy/to_numpy raised {type(exc).__name__}{': ' if text else ''}{text}"
            continue
        if got is not dtype or back.dtype != dtype.numpy:
            skipped[dtype] = (f"from_numpy of {dtype.name} gave {getattr(got, 'name', got)} "
                              f"(to_numpy: {back.dtype})")
        elif back.shape != host.shape or not np.array_equal(back, host):
            skipped[dtype] = f"the round trip through from_numpy/to_numpy changed {dtype.name} values"
        else:
            held.add(dtype)
    return HeldDtypes(backend.name, frozenset(held), False, skipped)


def runs_in(case: Case, held: HeldDtypes, serves: HeldDtypes, outputs: Iterable[DType] = ()) -> list[DType]:
    """The dtypes of `case` that keep it from running: of its inputs, those the kernel does
    not serve (`serves`: the backend's dtypes narrowed by the kernel's config); of its dtype
    attributes and its `outputs`, those the backend does not hold. Empty: the case runs."""
    wanted = [i.dtype for i in case.infos() if i.dtype not in serves.dtypes]
    made = [*(v for v in case.attrs.values() if isinstance(v, DType)), *outputs]
    return wanted + [d for d in made if d not in held.dtypes]
