"""A SQLite writer's WAL checkpoints, run beside its work instead of inside its commits.

In WAL mode SQLite copies the log back into the database (a checkpoint: writes and two
``fsync``s) inside the commit that finds the log past 1,000 pages. An index build's
page child commits about a megabyte per page, so every few pages one of its commits would
wait for the disk, while its next page could be parsed. ``Checkpoints`` turns that off
for one engine's connections and checkpoints in a thread of its own after every third
commit (``committed``: about as often as SQLite's own, at 1,000 pages of log); the writer
waits for it before its next write (``writing``), so that the write finds the log wholly
copied back and starts it over from the beginning: the log stays about three pages'
size. Durability is SQLite's: the checkpoint syncs as SQLite's own does
(``synchronous=NORMAL``).

PostgreSQL (or any other database) has nothing of this: ``for_engine`` returns None.
"""

from __future__ import annotations

import contextlib
import logging
import threading

from sqlalchemy import event
from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)


class Checkpoints:
    """One engine's checkpoints in a thread: ``committed`` after each commit, ``writing``
    before each write, ``close`` at the end (waits for the last one)."""

    def __init__(self, engine: Engine, every: int = 3):
        self._engine = engine
        self._every, self._commits = every, 0
        self._asked = threading.Event()
        self._done = threading.Event()
        self._done.set()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="wal-checkpoints", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with self._engine.connect() as conn:
                while True:
                    self._asked.wait()
                    self._asked.clear()
                    if self._closed:
                        break
                    # PASSIVE: copies what no reader still needs, never waits for one
                    # (nor for SQLite's busy timeout).
                    with contextlib.suppress(Exception):  # the next one's chance
                        conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                        conn.rollback()
                    self._done.set()
        except Exception as error:  # no connection: the writer's commits go on (SQLite's
            # own checkpoints then run in another connection's commits, not here)
            log.warning("WAL checkpoints beside the writer stopped: %s", type(error).__name__)
        finally:  # nobody waits for a thread that has stopped
            self._done.set()

    def committed(self) -> None:
        """Start a checkpoint of what was committed (in the thread), every ``every``
        commits."""
        self._commits += 1
        if self._commits % self._every == 0 and self._thread.is_alive():
            self._done.clear()
            self._asked.set()

    def writing(self) -> None:
        """Wait for the checkpoint under way, if any (before the next write)."""
        while not self._done.wait(1.0) and self._thread.is_alive():
            pass

    def close(self) -> None:
        """Finish the checkpoint under way and stop the thread."""
        self.writing()
        self._closed = True
        self._asked.set()
        self._thread.join(5.0)


def for_engine(engine: Engine) -> Checkpoints | None:
    """Return the checkpoints of ``engine``'s commits, run beside them (a SQLite engine
    made for one writer: its connections no longer checkpoint in their commits); None
    for another database."""
    if engine.dialect.name != "sqlite":
        return None

    @event.listens_for(engine, "connect")
    def _no_checkpoint_in_commits(dbapi_conn, _record):
        dbapi_conn.execute("PRAGMA wal_autocheckpoint=0")

    return Checkpoints(engine)
