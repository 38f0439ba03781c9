"""Pause Python's cycle collector while an export from the index makes a chunk.

An export from the index (``index_source``) turns a thousand stored records into a
thousand dicts, then into text, and drops them: tens of thousands of short-lived
containers per chunk, none of them in a reference cycle (JSON values cannot form one).
With the collector on, those allocations trigger collections that scan the page's objects
and promote them to older generations, and every few chunks a full collection scans the
whole worker's heap: a large share of an export's CPU time. The records are
freed by reference counting as soon as their chunk is written, so pausing the collector
while a chunk is made loses nothing.

The pause is process-wide (``gc`` has one switch), so it is counted: concurrent exports
keep it paused until the last one's chunk is done, and a pause that has lasted more than
``MAX_PAUSE`` seconds collects the young generations when a chunk ends, so that cycles
made by other threads meanwhile are still freed. A collector someone turned off stays off.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

MAX_PAUSE = 1.0
_lock = threading.Lock()
_state = {"pauses": 0, "was_enabled": False, "since": 0.0}
_END = object()


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cycle collector paused (counted across threads)."""
    with _lock:
        if _state["pauses"] == 0:
            _state["was_enabled"], _state["since"] = gc.isenabled(), time.monotonic()
            gc.disable()
        _state["pauses"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["pauses"] -= 1
            if _state["was_enabled"]:
                if _state["pauses"] == 0:
                    gc.enable()
                elif time.monotonic() - _state["since"] > MAX_PAUSE:
                    gc.collect(1)  # other threads' young cycles, while pauses overlap
                    _state["since"] = time.monotonic()


def chunks_without_pauses(chunks: Iterable) -> Iterator:
    """Yield ``chunks``, each one made with the collector paused (module docstring)."""
    source = iter(chunks)
    while True:
        with paused():
            chunk = next(source, _END)
        if chunk is _END:
            return
        yield chunk
