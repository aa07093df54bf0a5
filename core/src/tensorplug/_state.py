"""Per-thread engine state: the active backend and the tapes being recorded."""

from __future__ import annotations

import threading
from typing import Any


class ThreadState(threading.local):
    def __init__(self) -> None:
        self.backend: Any = None  # the active Backend instance; None until first use
        self.tapes: list[Any] = []  # recording tapes, innermost last


state = ThreadState()
