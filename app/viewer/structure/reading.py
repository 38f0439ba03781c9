"""A structure file read for the 3D pages: in a budgeted child process, once per file.

``read(data, fmt, stop)`` returns ``model.read``'s ``Model`` of the file, interface
included (None: the file is unreadable, or was not read within ``READ_SECONDS``). The
parse and the interface are CPU-bound, seconds for a large complex: in a gunicorn
worker's threads they would hold its GIL while every other visitor's page waited. So they
run in the worker's ``structure`` child (``runtime.budget``), killed past
``READ_SECONDS``: a hostile file costs that much at most.

The answer is kept per file (the SHA-256 of its bytes, and its format) in a
``BoundedCache``, failures too, so a file is read once per worker however many visitors
open it: its 3D page, its PAE map and the compare page share the reading. Concurrent
misses of one file wait for the one reading under way instead of each starting its own.

``stop`` says whether the visitor asking has left (``web.departure``): a reading that no
visitor waits for any more is stopped (its child killed) and nothing is kept, so the next
visitor reads the file afresh.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from app.viewer.runtime import budget
from app.viewer.runtime.cache import BoundedCache
from app.viewer.structure import model as structure_model

log = logging.getLogger(__name__)

CHILD = "structure"  # the budgeted child process of each worker that reads the files
# A file's whole reading: an 80,000-atom complex takes about 2 s on a quiet core; a file
# past this is hostile, and costs this once per worker (its failure is kept).
READ_SECONDS = 30.0
# How often a visitor waiting on another's reading checks whether it has left.
WAIT_POLL_SECONDS = 0.25
# Residues kept in all (about 0.5 KB each with their coordinates): ~50 MB a worker.
KEPT_RESIDUES = 100_000

# What makes a file unreadable (``model.read``'s errors); anything else is a bug, and raises.
UNREADABLE = (RuntimeError, ValueError, IndexError)


@dataclass(frozen=True)
class Kept:
    """One file's reading: its model, or None (unreadable or over its budget)."""

    model: structure_model.Model | None


def _weight(kept: Kept) -> int:
    return 1 + (len(kept.model.residues) if kept.model is not None else 0)


_kept: BoundedCache[Kept] = BoundedCache(256, maxweight=KEPT_RESIDUES, weight=_weight)


@dataclass
class _Reading:
    """A reading under way: done when its answer is kept (or it stopped)."""

    done: threading.Event = field(default_factory=threading.Event)
    waiters: int = 0


_under_way: dict[tuple[str, str], _Reading] = {}
_lock = threading.Lock()


def key(data: bytes, fmt: str) -> tuple[str, str]:
    """Return the key a file's reading is kept under: its bytes' SHA-256 and its format."""
    return hashlib.sha256(data).hexdigest(), fmt


def kept(data: bytes, fmt: str) -> Kept | None:
    """Return the file's kept reading, or None when it has not been read (or was dropped)."""
    return _kept.get(key(data, fmt))


@budget.task("structure")
def read_item(item: tuple[bytes, str]) -> structure_model.Model | str:
    """Return ``model.read(*item)``, or the error's class name when it is unreadable."""
    try:
        return structure_model.read(*item)
    except UNREADABLE as error:
        return type(error).__name__


def read(data: bytes, fmt: str, stop: Callable[[], bool] | None = None
         ) -> structure_model.Model | None:
    """Return the file's model (module docstring): kept, being read, or read now."""
    wanted = key(data, fmt)
    stop = stop or (lambda: False)
    while True:
        found = _kept.get(wanted)
        if found is not None:
            return found.model
        with _lock:
            reading = _under_way.get(wanted)
            leader = reading is None
            if leader:
                reading = _under_way[wanted] = _Reading()
            else:
                reading.waiters += 1
        if leader:
            return _lead(wanted, reading, data, fmt, stop)
        try:
            while not reading.done.wait(WAIT_POLL_SECONDS):
                if stop():
                    return None
        finally:
            with _lock:
                reading.waiters -= 1
        # Done: kept (found at the loop's top), or stopped by its leader: read it then.


def _lead(wanted: tuple[str, str], reading: _Reading, data: bytes, fmt: str,
          stop: Callable[[], bool]) -> structure_model.Model | None:
    """Read the file in the child for everyone waiting on ``reading``; keep the answer."""
    def nobody_waits() -> bool:
        return reading.waiters == 0 and stop()

    try:
        answer = budget.worker(CHILD).run_one("structure", (data, fmt), seconds=READ_SECONDS,
                                              stop=nobody_waits)
        if answer is budget.OVERRUN and nobody_waits():
            return None  # stopped for a visitor who left: nothing learnt, nothing kept
        if not isinstance(answer, structure_model.Model):
            log.info("structure not readable for the 3D page: %s", answer)
            answer = None
        _kept.put(wanted, Kept(answer))
        return answer
    finally:
        with _lock:
            _under_way.pop(wanted, None)
        reading.done.set()


def forget() -> None:
    """Drop every kept reading (tests and benchmarks time the reading this way)."""
    _kept.clear()
