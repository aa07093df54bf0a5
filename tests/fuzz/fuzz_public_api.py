"""A long fuzz of the public API, outside the test suite: every callable the suite's fuzz
(tests/test_fuzz_public_api.py) covers, called with its bad and edge arguments, by default 1,000
calls per callable on each first-party backend.

    python tests/fuzz/fuzz_public_api.py                      (1,000 calls, numpy and jax)
    python tests/fuzz/fuzz_public_api.py --calls 50 --backend numpy --only tp.nn.

It prints totals: the calls made, the raw exceptions (any exception that is not a
TensorplugError, counted by callable and exception type, with one call and message each), the
crashes (the process died: an abort in a backend's library) and the hangs (a call that ran past
``--timeout`` seconds). Each backend runs in a subprocess of its own, which is restarted past a
call that crashed or hung. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

TESTS = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 300.0  # a worker's imports (jax) on a busy machine, before its first call


class _Timeout(BaseException):
    """Raised in a worker by SIGALRM when a call runs past its time (not an Exception, so that
    nothing the call runs catches it)."""


# -- the worker: one backend, in its own process -----------------------------------------------------
def _worker(backend: str, calls: int, timeout: float, start: tuple[int, int], only: list[str],
            out: TextIO) -> None:
    """Run the calls of every callable after `start` (callable index, call index) on `backend`,
    writing one JSON line per event to `out`."""
    sys.path.insert(0, str(TESTS))
    from hypothesis import HealthCheck, Phase, given, seed, settings

    import test_fuzz_public_api as fuzz

    def emit(**event: Any) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    def on_alarm(signum: int, frame: Any) -> None:
        raise _Timeout

    signal.signal(signal.SIGALRM, on_alarm)
    fuzz.tp.set_backend(backend)  # (its start, not timed)
    def fuzz_one(ci: int, name: str) -> None:
        fn = fuzz.CALLABLES[name]
        count = 0

        @seed(zlib.crc32(name.encode()))
        @settings(max_examples=calls, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(fuzz.calls(fn))
        def check(call: Any) -> None:
            nonlocal count
            count += 1
            if (ci, count) <= start:
                return
            emit(event="start", ci=ci, k=count, name=name, call=repr(call))
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                try:
                    exc = fuzz.run_isolated(fn, call, backend)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except _Timeout:  # (the state it left may be broken: a fresh worker goes on)
                emit(event="hang", ci=ci, k=count, name=name, call=repr(call))
                os._exit(3)
            if exc is not None:
                emit(event="raw", ci=ci, k=count, name=name, call=repr(call), type=type(exc).__name__,
                     message=str(exc)[:300])
            emit(event="done", ci=ci, k=count)

        check()

    for ci, name in enumerate(_names(fuzz.CALLABLES, only)):
        if ci >= start[0]:
            fuzz_one(ci, name)
    emit(event="end")


def _names(callables: dict[str, Any], only: list[str]) -> list[str]:
    return [n for n in sorted(callables) if not only or any(n.startswith(p) for p in only)]


# -- the parent: runs a worker per backend, restarting it past crashes and hangs -----------------
def _lines(stream: TextIO, into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


def _run_backend(backend: str, args: argparse.Namespace, found: dict[str, list[dict[str, Any]]]) -> int:
    """Every call on `backend`, through as many workers as crashes and hangs need; the number of
    calls made."""
    start, made = (0, 0), 0
    while True:
        with tempfile.TemporaryFile("w+") as errors:
            command = [sys.executable, __file__, "--worker", backend, "--calls", str(args.calls),
                       "--timeout", str(args.timeout), "--start", f"{start[0]}:{start[1]}",
                       *(["--only", *args.only] if args.only else [])]
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
            assert proc.stdout is not None
            lines: queue.Queue[str | None] = queue.Queue()
            threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
            current: dict[str, Any] | None = None
            ended = hung = False
            while not ended:
                wait = STARTUP_SECONDS if current is None else 2 * args.timeout + 10
                try:
                    line = lines.get(timeout=wait)
                except queue.Empty:  # stuck where the alarm cannot reach (in a library's C code)
                    proc.kill()
                    if current is None:
                        raise SystemExit(f"the {backend} worker made no call in {wait:.0f} s") from None
                    found["hangs"].append({**current, "backend": backend})
                    hung = True
                    break
                if line is None:
                    break
                event = json.loads(line)
                kind = event["event"]
                if kind == "start":
                    current, made = event, made + 1
                    _progress(backend, event, made)
                elif kind == "hang":
                    found["hangs"].append({**event, "backend": backend})
                    hung = True
                elif kind in ("done", "raw"):
                    if kind == "raw":
                        found["raw"].append({**event, "backend": backend})
                    current, start = None, (event["ci"], event["k"])
                ended = kind == "end"
            code = proc.wait()
            if ended:
                return made
            if current is None:
                errors.seek(0)
                raise SystemExit(f"the {backend} worker failed outside a call ({code}):\n{errors.read()}")
            if not hung:
                errors.seek(0)
                found["crashes"].append({**current, "backend": backend, "returncode": code,
                                         "message": errors.read()[-300:]})
            start = (current["ci"], current["k"])


def _progress(backend: str, event: dict[str, Any], made: int) -> None:
    if made % 500 == 0:
        print(f"  {backend}: {made} calls, now {event['name']}", file=sys.stderr, flush=True)


def _report(found: dict[str, list[dict[str, Any]]], made: dict[str, int], seconds: float,
            args: argparse.Namespace) -> Iterator[str]:
    yield (f"fuzz of the public API: {args.calls} calls per callable, {sum(made.values())} calls made "
           f"({', '.join(f'{b}: {n}' for b, n in made.items())}) in {seconds:.0f} s")
    raw = found["raw"]
    yield f"raw exceptions: {len(raw)}"
    groups = Counter((e["backend"], e["name"], e["type"]) for e in raw)
    first: dict[tuple[str, str, str], dict[str, Any]] = {}
    for e in raw:
        first.setdefault((e["backend"], e["name"], e["type"]), e)
    for (backend, name, kind), n in sorted(groups.items(), key=lambda item: (-item[1], item[0])):
        e = first[(backend, name, kind)]
        yield f"  {n:6d}  {backend:5s}  {name}  {kind}  e.g. {name}{e['call']}: {e['message'][:160]}"
    for label in ("crashes", "hangs"):
        yield f"{label}: {len(found[label])}"
        for e in found[label]:
            extra = f" (exit {e['returncode']}): {e['message'][-160:]}" if label == "crashes" else ""
            yield f"  {e['backend']:5s}  {e['name']}{e['call']}{extra}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls per callable and backend (1000)")
    parser.add_argument("--backend", action="append", choices=["numpy", "jax"],
                        help="a backend to fuzz (repeatable; default both)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a call may take (20)")
    parser.add_argument("--only", nargs="+", default=[], help="fuzz the callables whose names start so")
    parser.add_argument("--json", type=Path, help="also write what was found to this file")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--start", default="0:0", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        out = os.fdopen(os.dup(1), "w")  # the events; what the fuzzed calls print goes to stderr
        os.dup2(2, 1)
        ci, k = (int(p) for p in args.start.split(":"))
        _worker(args.worker, args.calls, args.timeout, (ci, k), args.only, out)
        return 0
    found: dict[str, list[dict[str, Any]]] = {"raw": [], "crashes": [], "hangs": []}
    began = time.monotonic()
    made = {backend: _run_backend(backend, args, found) for backend in args.backend or ["numpy", "jax"]}
    report = "\n".join(_report(found, made, time.monotonic() - began, args))
    print(report)
    if args.json:
        args.json.write_text(json.dumps({"made": made, **found}, indent=1))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
