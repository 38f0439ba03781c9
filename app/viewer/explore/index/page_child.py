"""An index build's page work in a child process: each page parsed, indexed and appended there.

With the embedded API (the default deployment) the API serving a page and the build
reading it share one GIL: per record the build's own work (parsing the page,
``index_rows.index_values``, the stored record, the protein columns, the insert) cost
twice what the API took to serve it, all in that one interpreter. ``PageChild`` moves
that work to a child process on the other core: the build thread (``indexer.Build``)
reads only the next page's cursor from the body (``envelope``), asks for that page and
hands the body over as bytes, while the child parses, indexes and writes the one before.

The child writes with an engine of its own to the same viewer store (SQLite in WAL mode
or PostgreSQL; an in-memory SQLite database cannot be shared: ``store.shared_url``)
through ``result_index.append``, which checks the build's lease in the same transaction
as the rows: a child whose parent lost its lease writes nothing. It checks that the page
says what the build thread read of it (``_check``) before writing anything. Two pages
may wait in the child (``DEPTH``): the next one is there when a page is done, without
waiting for the parent's thread to wake (it shares its GIL with the API serving the
pages). A thread of the child receives them (``_received``). After a page that failed
the child refuses every later one, so the rows written stay a prefix of the pipeline's
results, resumable from ``last_id``.

With SQLite, the child's commits do not copy the log back into the database (a
checkpoint: writes and two ``fsync``s every few pages): a thread of the child does it
after every third commit while the next page is parsed (``store.wal_checkpoints``).

The child also builds the index's frame from the rows as it appends them (``frame.build``
reads its pages as they come, ``_pages``): a cold build's end saves it (``PageChild.frame``)
instead of reading every row back from the store.

The child is forked from the chemistry's ``forkserver`` (``chem.budget``: the app and its
libraries imported once, when a gunicorn worker starts), so a build's child starts in
milliseconds.
"""

from __future__ import annotations

import contextlib
import gc
import queue
import re
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.platform.db import json_loads, make_engine
from app.viewer.core.records import readable_records
from app.viewer.explore.index import frame
from app.viewer.explore.index.frame import Frame
from app.viewer.runtime import budget
from app.viewer.store import wal_checkpoints

# The parent's request for the frame, after the last page.
_FRAME = "frame"
# How many pages may wait in the child (submitted, their answer not yet read).
DEPTH = 2
# A page after a failed one: refused, nothing of it written.
_REFUSED = "AfterFailedPage"
# How long ``close`` lets a child finish before it is killed.
_CLOSE_SECONDS = 10.0
# What ``envelope`` reads without parsing the records: the page's head (is ``data`` empty?)
_HEAD = re.compile(rb'\{\s*"data"\s*:\s*\[\s*(\]?)')
_TAIL_KEYS = {"first_id", "last_id", "has_more"}


class PageChildFailed(Exception):
    """The child could not index or write a page (its message: the error's class name)."""


@dataclass(frozen=True)
class Appended:
    """A page's answer: appended (False: the lease was lost), how many records it held,
    and their SMILES (for the build's chemistry)."""

    kept: bool
    count: int
    smiles: list[str]


def page_smiles(records: list[dict]) -> list[str]:
    """Return the records' SMILES (those that are text)."""
    return [r["smiles"] for r in records if isinstance(r.get("smiles"), str)]


def envelope(body: bytes) -> dict:
    """Return a results page's ``last_id``, ``has_more`` and whether its ``data`` is
    ``empty``, reading only its ends when the body is the service's own shape,
    ``{"data":[...],"first_id":...,"last_id":...,"has_more":...}``.

    The build thread needs only the cursor to ask for the next page; parsing a page of
    1,000 records in it would be most of what it adds to the API's own work. Any other shape
    is parsed whole. The child parses the page whole and checks what was read here
    (``_check``): a page misread writes nothing and stops the build.
    """
    head = _HEAD.match(body)
    at = body.rfind(b'"first_id"')
    if head and at > 0:
        before = body[max(at - 256, 0):at].rstrip()  # not a copy of the whole page
        if before.endswith(b",") and before[:-1].rstrip().endswith(b"]"):
            try:
                tail = json_loads(b"{" + body[at:])
            except ValueError:
                tail = None
            if isinstance(tail, dict) and set(tail) == _TAIL_KEYS:
                return {"last_id": tail["last_id"], "has_more": tail["has_more"],
                        "empty": bool(head.group(1))}
    page = json_loads(body)
    return {"last_id": page.get("last_id"), "has_more": page.get("has_more"),
            "empty": not page.get("data")}


def _check(page: dict, last_id: str | None, more: bool) -> list[dict]:
    """Return the page's records if it says what the build thread read of it."""
    records = page.get("data") or []
    if page.get("last_id") not in (None, last_id) \
            or bool(page.get("has_more") and records) != more:
        raise PageChildFailed("PageMisread")
    return records


def _received(conn) -> queue.SimpleQueue:
    """Return a queue of the parent's messages, received by a thread as they come
    (a page's body is read while the one before is worked on; ``EOFError`` when the
    parent is gone). The thread stops after ``None`` or ``_FRAME``."""
    messages: queue.SimpleQueue = queue.SimpleQueue()

    def receive() -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                messages.put(EOFError)
                return
            messages.put(message)
            if message is None or message == _FRAME:
                return

    threading.Thread(target=receive, name="index-pages-in", daemon=True).start()
    return messages


def _pages(conn, engine, spoiled: list[str], asked: list[bool], checkpoints=None
           ) -> Iterator[dict]:
    """Serve the parent's pages, answering each ``(Appended, error)``; yield the columns
    of each one appended, in order from the index's first row (``frame.build`` reads
    them). Returns at the parent's ``_FRAME`` (``asked``), at ``None`` or when the
    parent is gone; a page not appended, or a first page after the first row,
    ``spoiled`` the frame; every page after a failed one is refused. ``checkpoints``:
    SQLite's log copied back beside the next page's work (``store.wal_checkpoints``),
    not inside a commit."""
    from app.viewer.explore.index import index_rows
    from app.viewer.store import result_index as store

    expected = 0  # the position of the next page's first row, if the frame holds them all
    messages = _received(conn)
    failed = False
    following = 0  # the position after the last page appended (a page sent without one)
    while True:
        message = messages.get()
        if message is EOFError:
            return
        if message is None:
            spoiled.append("closed")
            return
        if message == _FRAME:
            asked.append(True)
            return
        if failed:  # the build stops at the failed page: nothing after it is written
            conn.send((None, _REFUSED))
            continue
        body, position, pipeline_id, owner, last_id, more, now, lease = message
        if position is None:  # sent before the page ahead of it was counted
            position = following
        try:
            records, skipped = readable_records(
                _check(json_loads(body, cache_values=False), last_id, more))
            columns, stored = index_rows.page_rows(records, position)
            if checkpoints is not None:
                checkpoints.writing()
            with engine.begin() as db:
                kept = store.append(db, pipeline_id, owner=owner, columns=columns,
                                    records=stored, last_id=last_id, now=now, lease=lease,
                                    skipped=skipped)
            if checkpoints is not None:
                checkpoints.committed()
            conn.send((Appended(kept, len(records), page_smiles(records)), None))
        except Exception as error:  # the parent stops the build (resumable)
            conn.send((None, str(error) if isinstance(error, PageChildFailed)
                       else type(error).__name__))
            spoiled.append("failed")
            failed = True
            continue
        if not kept or position != expected:
            spoiled.append("not the whole index")
        expected += len(records)
        following = position + len(records)
        if records and not spoiled:  # the columns as the store has them
            yield columns


def _serve(conn, url: str) -> None:
    """The child's loop (``_pages``), building the index's frame from the pages as they
    are appended; sent to the parent when it asks (``PageChild.frame``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # its parent stops it (``close``)
    # A page is ~100,000 new objects, none in a cycle: the collector's passes over the
    # app's own objects (inherited from the forkserver) cost more than the page's work.
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    engine = make_engine(url)
    checkpoints = wal_checkpoints.for_engine(engine)
    spoiled: list[str] = []
    asked: list[bool] = []
    try:
        built = frame.build(_pages(conn, engine, spoiled, asked, checkpoints))
        if asked:
            conn.send(None if spoiled else built)
            with contextlib.suppress(EOFError):
                conn.recv()  # None: closed
    finally:
        if checkpoints is not None:
            checkpoints.close()
        engine.dispose()


class PageChild:
    """One build's child process (module doc): ``submit`` pages (at most ``depth``
    waiting), take their ``result`` in order."""

    # Each append renews the build's lease in its transaction.
    renews = True
    depth = DEPTH

    def __init__(self, url: str):
        context = budget._context  # the chemistry's forkserver: imports done once
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, url), daemon=True,
                                        name="index-pages")
        self._process.start()
        child.close()
        self.waiting = 0  # pages submitted whose answer was not read yet

    def submit(self, body: bytes, position: int | None, pipeline_id: str, owner: str,
               last_id: str | None, more: bool, now: datetime, lease: timedelta) -> None:
        """Send one page's body as the API sent it (numbered from ``position``, None:
        from the end of the page sent before; its ``last_id`` and whether more follow, as
        ``envelope`` read them) to be indexed and appended. Bytes, not records: pickling
        those cost more than parsing."""
        self._conn.send((body, position, pipeline_id, owner, last_id, more, now, lease))
        self.waiting += 1

    def result(self) -> Appended:
        """Wait for the earliest page whose answer was not read and return it. Raises
        ``PageChildFailed`` if it could not be read, indexed or written (nothing of it,
        nor of any page after it, is then written)."""
        self.waiting -= 1
        try:
            done, error = self._conn.recv()
        except (EOFError, OSError):
            raise PageChildFailed("ChildDied") from None
        if error is not None:
            raise PageChildFailed(error)
        return done

    def frame(self) -> Frame | None:
        """Return the frame of every page appended, built as they came (what
        ``frame.build`` makes from the store's rows), or None if this child did not
        append the whole index (a resumed build) or a page failed."""
        self._conn.send(_FRAME)
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            return None

    def drain(self) -> list[Appended]:
        """Wait for the pages still in the child and return the answers of those
        appended or refused by the store (not those that failed), in order: before
        giving up the lease, so nothing is written after the build stopped."""
        answers = []
        while self.waiting > 0:
            with contextlib.suppress(PageChildFailed):
                answers.append(self.result())
        return answers

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
