"""What ``tp.profile()`` recorded: one ``KernelEvent`` per kernel call (and per compiled
``tp.jit`` call), a table of them per (kernel, backend), and the Chrome trace export."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tensorplug.core.lazy_modules import lazy_module
from tensorplug.core.records import Record
from tensorplug.tools.text_tables import table

if TYPE_CHECKING:
    import pathlib
else:  # (run at the first export_chrome_trace, issue 37)
    pathlib = lazy_module("pathlib")

__all__ = ["KernelEvent", "Profile", "ProfileRow"]

#: (shape, dtype name) of one input or output
Info = tuple[tuple[int, ...], str]


class KernelEvent(Record):
    """One kernel call (``category`` "kernel") or one compiled call of a ``tp.jit`` function
    (``category`` "jit", ``name`` ``"jit(<function>)"``, its inputs and outputs the compiled
    function's arrays).

    ``op`` is the public op the calling code called (``"nn.softmax"``; "" when a kernel was
    run by name), ``phase`` "forward" or "backward" (``gradient_of``: the kernel whose
    gradient ran it), ``traced`` whether it ran while ``tp.jit`` traced a function.
    ``start_ns``/``duration_ns`` come from ``time.perf_counter_ns()``; ``bytes`` is the size of
    the outputs that are new arrays (an output that is one of the inputs counts 0).
    """

    __slots__ = ("name", "backend", "source", "inputs", "outputs", "start_ns", "duration_ns", "bytes", "op",
                 "phase", "gradient_of", "traced", "category", "thread")
    name: str
    backend: str
    source: str
    inputs: tuple[Info, ...]
    outputs: tuple[Info, ...]
    start_ns: int
    duration_ns: int
    bytes: int
    op: str
    phase: str
    gradient_of: str
    traced: bool
    category: str
    thread: int

    def __init__(self, name: str, backend: str, source: str, inputs: tuple[Info, ...],
                 outputs: tuple[Info, ...], start_ns: int, duration_ns: int, bytes: int, op: str = "",
                 phase: str = "forward", gradient_of: str = "", traced: bool = False,
                 category: str = "kernel", thread: int = 0) -> None:
        self._set(name=name, backend=backend, source=source, inputs=inputs, outputs=outputs,
                  start_ns=start_ns, duration_ns=duration_ns, bytes=bytes, op=op, phase=phase,
                  gradient_of=gradient_of, traced=traced, category=category, thread=thread)


class ProfileRow(Record):
    """The calls of one kernel (or jitted function) on one backend."""

    __slots__ = ("name", "backend", "source", "calls", "total_ns", "bytes")
    name: str
    backend: str
    source: str
    calls: int
    total_ns: int
    bytes: int

    def __init__(self, name: str, backend: str, source: str, calls: int, total_ns: int, bytes: int) -> None:
        self._set(name=name, backend=backend, source=source, calls=calls, total_ns=total_ns, bytes=bytes)

    @property
    def mean_us(self) -> float:
        """The mean time of one call, in microseconds."""
        return self.total_ns / self.calls / 1e3


@dataclass
class Profile:
    """What ``with tp.profile() as prof:`` recorded, filled in while the block runs.

    ``start_bytes`` are the bytes of the tensors alive when the block began, ``peak_bytes``
    the most alive at once during it (tensors made by kernels are followed; see
    ``tp.profile``), ``end_bytes`` those alive at its end.
    """

    events: list[KernelEvent] = field(default_factory=list)
    start_ns: int = 0
    end_ns: int = 0
    start_bytes: int = 0
    peak_bytes: int = 0
    end_bytes: int = 0

    def rows(self) -> list[ProfileRow]:
        """One row per (name, backend), by total time, longest first."""
        grouped: dict[tuple[str, str], list[KernelEvent]] = {}
        for e in self.events:
            grouped.setdefault((e.name, e.backend), []).append(e)
        rows = [ProfileRow(name, backend, events[-1].source, len(events),
                           sum(e.duration_ns for e in events), sum(e.bytes for e in events))
                for (name, backend), events in grouped.items()]
        return sorted(rows, key=lambda r: (-r.total_ns, r.name, r.backend))

    def table(self) -> str:
        """A printable table: one row per (kernel, backend) by total time, with calls, total
        ms, mean us and bytes allocated, then the peak of live tensor bytes."""
        rows = [(r.name, r.backend, r.source, str(r.calls), f"{r.total_ns / 1e6:.3f}",
                 f"{r.mean_us:.1f}", _size(r.bytes)) for r in self.rows()]
        total = sum(e.duration_ns for e in self.events if e.category == "kernel")
        body = table(["kernel", "backend", "registered by", "calls", "total ms", "mean us", "bytes"],
                     rows or [("(no kernel calls)", "", "", "", "", "", "")])
        return (f"{body}\n  {len(self.events)} call(s), {total / 1e6:.3f} ms in kernels; live tensor "
                f"bytes: {_size(self.start_bytes)} at the start, peak {_size(self.peak_bytes)}, "
                f"{_size(self.end_bytes)} at the end")

    def __str__(self) -> str:
        return self.table()

    def chrome_trace(self) -> dict[str, Any]:
        """The events in the Chrome Trace Event format (what ``export_chrome_trace`` writes)."""
        pid = os.getpid()
        events: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "tensorplug"}}]
        for e in self.events:
            args: dict[str, Any] = {
                "backend": e.backend, "registered_by": e.source, "phase": e.phase,
                "inputs": [_shown(i) for i in e.inputs], "outputs": [_shown(o) for o in e.outputs],
                "bytes": e.bytes,
            }
            if e.op:
                args["op"] = e.op
            if e.gradient_of:
                args["gradient_of"] = e.gradient_of
            if e.traced:
                args["traced"] = True
            events.append({"name": e.name, "cat": e.category, "ph": "X", "pid": pid, "tid": e.thread,
                           "ts": (e.start_ns - self.start_ns) / 1e3, "dur": e.duration_ns / 1e3,
                           "args": args})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Write the events as Chrome Trace Event JSON ("X" events, times in microseconds), which
        Perfetto (ui.perfetto.dev) and chrome://tracing open; returns the path."""
        out = pathlib.Path(path)
        out.write_text(json.dumps(self.chrome_trace()))
        return out


def _shown(info: Info) -> str:
    shape, dtype = info
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


def _size(n: int) -> str:
    """Bytes as people read them: '512 B', '3.0 KiB', '1.5 MiB'."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 ** 2:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 ** 2:.1f} MiB"
