"""An index build's page work in a child process: each page indexed and appended there.

With the embedded API (the default deployment) the API serving a page and the build
reading it share one GIL: per record the build's own work (``index_rows.index_values``,
the stored record, the protein columns, the insert) cost twice what the API took to serve
it, all in that one interpreter. ``PageChild`` moves that work to a child process on the
other core: the build thread (``indexer.Build``) fetches page N+1 while the child indexes
and writes page N, so a build goes at about the pace of reading the pages.

The child writes with an engine of its own to the same viewer store (SQLite in WAL mode
or PostgreSQL; an in-memory SQLite database cannot be shared: ``store.shared_url``) through
``result_index.append``, which checks the build's lease in the same transaction as
before: a child whose parent lost its lease writes nothing. One page is in the child at a
time (``submit`` then ``result``), so a failure stops the build after at most that page
and the rows written are a prefix of the pipeline's results, resumable from ``last_id``.

The child is forked from the chemistry's ``forkserver`` (``chem.budget``: the app and its
libraries imported once), so a build's child starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import gc
import signal
from datetime import datetime, timedelta

from app.viewer.chem import budget

# The child's answer of a page it could not index or write (the error's class name).
_FAILED = "failed"
# How long ``close`` lets a child finish before it is killed.
_CLOSE_SECONDS = 10.0


class PageChildFailed(Exception):
    """The child could not index or write a page (its message: the error's class name)."""


def _serve(conn, url: str) -> None:
    """The child's loop: index and append each page sent, answer ``(kept, error)``."""
    from app.db import json_loads, make_engine
    from app.viewer.results import index_rows
    from app.viewer.store import result_index as store

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # its parent stops it (``close``)
    # A page is ~100,000 new objects, none in a cycle: the collector's passes over the
    # app's own objects (inherited from the forkserver) cost more than the page's work.
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    engine = make_engine(url)
    try:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                return
            if message is None:
                return
            page, position, pipeline_id, owner, last_id, now, lease = message
            try:
                records = json_loads(page)["data"] if isinstance(page, bytes) else page
                rows, stored, codes = index_rows.page_rows(records, position)
                with engine.begin() as db:
                    kept = store.append(db, pipeline_id, owner=owner, rows=rows,
                                        records=stored, last_id=last_id, codes=codes,
                                        now=now, lease=lease)
                conn.send((kept, None))
            except Exception as error:  # the parent stops the build (resumable)
                conn.send((False, type(error).__name__))
    finally:
        engine.dispose()


class PageChild:
    """One build's child process (module doc): ``submit`` a page, then take its ``result``."""

    # Each append renews the build's lease in its transaction.
    renews = True

    def __init__(self, url: str):
        context = budget._context  # the chemistry's forkserver: imports done once
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, url), daemon=True,
                                        name="index-pages")
        self._process.start()
        child.close()
        self._busy = False

    def submit(self, body: bytes | list[dict], position: int, pipeline_id: str, owner: str,
               last_id: str, now: datetime, lease: timedelta) -> None:
        """Send one page (numbered from ``position``) to be indexed and appended: the
        API's body as it came (parsed again there: cheaper than pickling its records) or
        the records themselves."""
        self._conn.send((body, position, pipeline_id, owner, last_id, now, lease))
        self._busy = True

    def result(self) -> bool:
        """Wait for the page sent last; return whether it was appended (False: the lease
        was lost). Raises ``PageChildFailed`` if it could not be indexed or written."""
        self._busy = False
        try:
            kept, error = self._conn.recv()
        except (EOFError, OSError):
            raise PageChildFailed("ChildDied") from None
        if error is not None:
            raise PageChildFailed(error)
        return kept

    def drain(self) -> None:
        """Wait for a page still in the child, whatever its answer (before giving up the
        lease: nothing is written after the build stopped)."""
        if self._busy:
            with contextlib.suppress(PageChildFailed):
                self.result()

    def close(self) -> None:
        """Stop the child once its page is done (killed if it does not stop in time)."""
        self.drain()
        with contextlib.suppress(OSError):
            self._conn.send(None)
        self._process.join(_CLOSE_SECONDS)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self._conn.close()
