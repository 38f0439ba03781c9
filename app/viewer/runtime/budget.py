"""Work under a hard time budget: CPU-bound tasks run in a child process, killed on overrun.

The molecules come from clients and the substructure queries from visitors, and some of
RDKit's algorithms are exponential in the worst case: a ring query of 40 atoms against a
polyacene takes seconds and each further atom multiplies it; CoordGen's layout of a plain
49-atom ring takes minutes. A guard that checks inputs first (``depict``'s ring and
atom limits) covers the cases we know; this covers the ones we do not. The work runs in a
child process, so the gunicorn worker's threads keep the GIL and keep answering, and the
child is killed when one item overruns ``item_seconds`` (the item's answer is ``OVERRUN``,
and the caller shows a placeholder and caches it) or the whole task overruns
``total_seconds`` (the items not reached are ``OVERRUN`` too). The next task starts a
fresh child.

A task is a module-level function registered under a name with ``@task("name")`` where it
is defined (chemistry, the epitope scan's structure reading): the runtime names no feature.
The child receives the function itself (pickled by reference, so its module is imported in
the child). Children are forked from a ``forkserver`` that has imported the modules of the
tasks registered before it started (RDKit, gemmi) once, so a new child costs milliseconds,
not an import. Each process (a gunicorn worker) has one child
per ``ChemistryWorker``, used by one task at a time (a lock): whole-set searches and
drawings have their own, so a long search never delays a drawing.

Memory is budgeted too: a child's data (its heap and anonymous maps, ``RLIMIT_DATA``) is
capped at ``CHILD_MEMORY_BYTES``. An item that needs more raises ``MemoryError`` in the
child and is answered ``OVERRUN``, as an item over its time is; a child that dies instead
(a library aborting on a failed allocation) is treated as one that stalled: the items
after its last batch are run again one by one and only the culprit is ``OVERRUN``.

A new child says it is ready before its first task is timed: the forkserver's first start
(importing RDKit, seconds on a busy machine) is not a task's overrun.

A caller that may stop wanting the answer (a visitor who hung up) passes ``stop``, a
function the runtime asks every ``STOP_POLL_SECONDS`` while it waits: once it says yes,
the child is killed at once and the items not answered are ``OVERRUN``.

Results stream back in batches (every ``BATCH`` items or ``FLUSH_SECONDS``), which keeps a
million-molecule search from paying a pipe message per molecule. When the child stalls, the
items after the last batch are run again one by one to find the one that overran; only it
is ``OVERRUN``.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger(__name__)


class _Overrun:
    """The answer of an item that did not finish within its budget."""

    def __repr__(self) -> str:
        return "OVERRUN"

    def __reduce__(self) -> str:
        return "OVERRUN"  # a child's answer unpickles as the parent's one ``OVERRUN``


OVERRUN: Any = _Overrun()
BATCH = 512
FLUSH_SECONDS = 0.05
STOP_POLL_SECONDS = 0.25  # how often a waiting caller's ``stop`` is asked
# A new child's first breath: the forkserver's own start imports RDKit and the app once.
STARTUP_SECONDS = 60.0
# The data a child may hold (``RLIMIT_DATA``). A forkserver child starts at about 200 MB
# (RDKit and gemmi imported); reading the largest structure file the viewer accepts
# (``core.artifacts.STRUCTURE_LIMIT``: 64 MB, about a million atoms) peaks near 1 GB.
CHILD_MEMORY_BYTES = 2 * 1024 ** 3
_READY = "ready"
_context = multiprocessing.get_context("forkserver")
_tasks: dict[str, Callable] = {}


def task(name: str) -> Callable[[Callable], Callable]:
    """Register the decorated module-level function as the task ``name``: it takes one
    item and the task's fixed arguments and returns something small and picklable."""
    def register(function: Callable) -> Callable:
        known = _tasks.setdefault(name, function)
        if known is not function:
            raise ValueError(f"two budgeted tasks are called {name!r}")
        return function
    return register


def _preload() -> None:
    """Have the forkserver import every registered task's module once, before it starts."""
    _context.set_forkserver_preload(sorted({f.__module__ for f in _tasks.values()}))


def _serve(conn, niceness: int = 0, memory_bytes: int = CHILD_MEMORY_BYTES) -> None:
    """The child's loop: run each task's items, send ``(start, answers)`` batches, then
    ``(None, count)`` when the task is done. ``precise`` tasks flush after every item.
    ``niceness`` lowers the child's CPU priority (background work: the workers' requests
    come first on a busy machine); ``memory_bytes`` caps its data (module doc).

    Ctrl-C in a terminal reaches the whole process group: the child ignores it (no
    KeyboardInterrupt traceback); its parent stops it (``daemon``, ``_kill``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness:
        os.nice(niceness)
    resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    # A parent that ended while the child started (a gunicorn worker stopped at once) or
    # while it worked has nobody left to answer: the child ends quietly, no traceback.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError):
        _answer(conn)


def _answer(conn) -> None:
    """``_serve``'s exchange with its parent, until the parent closes the pipe."""
    conn.send(_READY)
    while True:
        function, fixed, items, start, precise = conn.recv()
        batch_start, answers, flushed = start, [], time.monotonic()
        for offset, item in enumerate(items):
            try:
                answers.append(function(item, *fixed))
            except MemoryError:  # over ``CHILD_MEMORY_BYTES``: over budget, as a stall is
                answers.append(OVERRUN)
            now = time.monotonic()
            if precise or len(answers) >= BATCH or now - flushed >= FLUSH_SECONDS:
                conn.send((batch_start, answers))
                batch_start, answers, flushed = start + offset + 1, [], now
        if answers:
            conn.send((batch_start, answers))
        conn.send((None, len(items)))


class _Stopped(Exception):
    """The caller's ``stop`` said yes while the child worked (``ChemistryWorker._run``)."""


class ChemistryWorker:
    """One child process that runs chemistry tasks under a time budget (module doc)."""

    def __init__(self, name: str, niceness: int = 0,
                 memory_bytes: int = CHILD_MEMORY_BYTES):
        self.name, self.niceness, self.memory_bytes = name, niceness, memory_bytes
        self._lock = threading.Lock()
        self._process = None
        self._conn = None

    def _ensure_child(self):
        if self._process is None or not self._process.is_alive():
            _preload()
            parent, child = _context.Pipe()
            self._process = _context.Process(target=_serve,
                                             args=(child, self.niceness, self.memory_bytes),
                                             daemon=True,
                                             name=f"chemistry-{self.name}")
            self._process.start()
            child.close()
            self._conn = parent
            # Timed tasks start once it runs (late: ``_run`` skips its word then).
            with contextlib.suppress(EOFError, OSError):  # died: its task will say so
                if parent.poll(STARTUP_SECONDS):
                    parent.recv()
        return self._conn

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = None

    def run_each(self, task: str, items: Sequence, fixed: tuple = (), *,
                 item_seconds: float, total_seconds: float,
                 stop: Callable[[], bool] | None = None) -> list:
        """Return the task ``task``'s answer ``function(item, *fixed)`` for each item,
        ``OVERRUN`` where it did not finish within ``item_seconds`` or before
        ``total_seconds`` ran out, or once ``stop()`` said yes (module doc)."""
        answers: list = [OVERRUN] * len(items)
        with self._lock:
            if items:  # a new child's start is not the task's time
                self._ensure_child()
            deadline = time.monotonic() + total_seconds
            start, precise_until = 0, -1
            while start < len(items) and time.monotonic() < deadline:
                precise = start <= precise_until or start == len(items) - 1
                try:
                    reached, stalled = self._run(task, items, fixed, start, answers,
                                                 precise=precise, item_seconds=item_seconds,
                                                 deadline=deadline, stop=stop)
                except _Stopped:
                    self._kill()  # working for nobody: the next task needs a fresh child
                    log.info("chemistry %s: stopped, its caller is gone", task)
                    return answers
                if not stalled:
                    start = reached
                    continue
                self._kill()
                if precise:  # alone, the item at ``start`` overran: skip it
                    log.warning("chemistry %s: one item overran its %.1f s budget",
                                task, item_seconds)
                    start, precise_until = start + 1, -1
                else:  # the culprit is among the items after the last batch: one by one
                    start, precise_until = reached, reached + BATCH - 1
            if start < len(items):
                self._kill()  # still working on the rest: the next task needs a fresh child
                log.warning("chemistry %s: %d of %d items left when its %.1f s ran out",
                            task, len(items) - start, len(items), total_seconds)
        return answers

    def _run(self, task: str, items: Sequence, fixed: tuple, start: int, answers: list, *,
             precise: bool, item_seconds: float, deadline: float,
             stop: Callable[[], bool] | None = None) -> tuple[int, bool]:
        """Send items from ``start``; fill ``answers``; return (next index, stalled?).

        Raises ``_Stopped`` once ``stop()`` says yes (the caller kills the child)."""
        conn = self._ensure_child()
        chunk = items[start:start + 1] if precise else items[start:]
        conn.send((_tasks[task], fixed, list(chunk), start, precise))
        reached = start
        heard = time.monotonic()
        while True:
            now = time.monotonic()
            wait = min(heard + item_seconds + FLUSH_SECONDS, deadline) - now
            if wait <= 0:
                return reached, True
            if stop is not None and stop():
                raise _Stopped()
            if not conn.poll(wait if stop is None else min(wait, STOP_POLL_SECONDS)):
                continue
            heard = time.monotonic()
            try:
                message = conn.recv()
            except (EOFError, OSError):  # the child died on an item: as if it stalled
                return reached, True
            if message == _READY:  # a child slower to start than STARTUP_SECONDS
                continue
            batch_start, batch = message
            if batch_start is None:
                return reached, False
            answers[batch_start:batch_start + len(batch)] = batch
            reached = batch_start + len(batch)

    def run_one(self, task: str, item: Any, fixed: tuple = (), *, seconds: float,
                stop: Callable[[], bool] | None = None) -> Any:
        """Return one item's answer, or ``OVERRUN`` (over ``seconds``, or stopped)."""
        return self.run_each(task, [item], fixed, item_seconds=seconds,
                             total_seconds=seconds, stop=stop)[0]


_workers: dict[str, ChemistryWorker] = {}
_workers_lock = threading.Lock()


def worker(name: str, niceness: int = 0) -> ChemistryWorker:
    """Return this process's ``ChemistryWorker`` called ``name`` (made on first use, its
    child at ``niceness``: see ``_serve``)."""
    with _workers_lock:
        if name not in _workers:
            _workers[name] = ChemistryWorker(name, niceness)
        return _workers[name]


def warm_up(names: tuple[str, ...] = ("drawings", "substructure")) -> None:
    """Start the forkserver and these workers' children in the background.

    The forkserver imports RDKit and the app once (seconds on a busy machine); done when a
    gunicorn worker starts (``post_worker_init``), the first visitor does not wait for it.
    """
    def start() -> None:
        for name in names:
            chemistry = worker(name)
            with chemistry._lock:
                chemistry._ensure_child()

    threading.Thread(target=start, name="chemistry-warm-up", daemon=True).start()
