"""Building and refreshing a pipeline's exploration index from the API's pages.

The compute API has no sort or filter, so the viewer reads a pipeline's results once,
``limit=1000`` at a time with the ``after_id`` cursor, into its own store
(``app.viewer.store.result_index``) and answers whole-set questions from there.

``ensure(link_id, pipeline)`` is called by a request that the API has just let read the
pipeline through the link. It returns the index's state at once:

- current (the run record's ``progress.latest_result_id``, ``status`` and result count,
  see ``core.run_kinds.freshness``, match what was indexed): used as is;
- being built by another worker (a live lease): left to it, the caller shows progress;
- otherwise this worker claims the lease and reads the missing pages from ``last_id``:
  inside the request when few remain (``EXPLORE_SYNC_LIMIT``), else in a background
  thread, so the visitor sees a progress bar within a second and nobody else waits.

A background build indexes and writes its pages in a child process (``page_child``): with
the embedded API, serving a page and indexing it shared one interpreter's lock. A build
inside a request does both in the request's thread.

The thread reads through the same link with the visitor's proof (a fresh token per page
for an email-mode link), so it never reads more than the visitor could. A failure midway
(API down, worker killed) leaves the rows read so far and an expiring lease: the next
request resumes from ``last_id``. A 404 from the API (link or pipeline gone) deletes the
index; ``ensure`` also drops indexes unused for ``EXPLORE_INDEX_IDLE_HOURS``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from flask import Flask, current_app

from app.platform import share_tokens
from app.platform.metrics.registry import INDEX_BUILD_SECONDS, INDEX_BUILDS
from app.platform.settings import setting
from app.platform.timeutil import utcnow
from app.viewer.access import identity
from app.viewer.core import run_kinds
from app.viewer.core.api_client import ComputeApi, api, restart_deadline
from app.viewer.core.errors import LinkNotFound
from app.viewer.core.records import UNREADABLE_RECORDS
from app.viewer.explore.index import chem_index, index_rows, page_child
from app.viewer.explore.index.frame import Frame
from app.viewer.explore.index.lease_keeper import LeaseKeeper
from app.viewer.store import get_engine, shared_url
from app.viewer.store import result_index as store
from app.viewer.store.result_index import IndexState

log = logging.getLogger(__name__)

# The largest page the API allows (``limit`` 1-1000, spec/compute-api.md).
PAGE_SIZE = 1000
LEASE = timedelta(seconds=30)
# While a build runs its lease is renewed this often (``LeaseKeeper``; a third of it: two
# renewals may be late before another worker could take the build over), and once more
# as each page arrives (it is then read and written, which takes a while under load).
RENEW_EVERY = LEASE / 3
_SWEEP_EVERY = 300.0
_last_sweep = [0.0]


class _HereWriter:
    """A build's page work in the build thread itself (``PageChild``'s interface): for a
    build inside a request (a few pages, no child to start) or an in-memory store."""

    renews = False  # the build renews its lease as each page arrives
    depth = 1  # ``submit`` does the page's work

    def __init__(self, engine):
        self._engine = engine
        self._done: page_child.Appended | None = None
        self.waiting = 0

    def submit(self, page: dict, position: int, pipeline_id: str, owner: str,
               last_id: str | None, _more: bool, now, lease: timedelta) -> None:
        """Index and append the page (as ``api_client`` read it) now (its answer:
        ``result``)."""
        records = page.get("data") or []
        columns, stored = index_rows.page_rows(records, position)
        with self._engine.begin() as conn:
            kept = store.append(conn, pipeline_id, owner=owner, columns=columns,
                                records=stored, last_id=last_id, now=now, lease=lease,
                                skipped=page.get(UNREADABLE_RECORDS, 0))
        self._done = page_child.Appended(kept, len(records), page_child.page_smiles(records))
        self.waiting = 1

    def result(self) -> page_child.Appended:
        self.waiting = 0
        return self._done

    def frame(self) -> None:
        return None  # ``_finish`` builds it from the store

    def drain(self) -> list:
        return []  # ``submit`` did the work: its answer was read with ``result``

    def close(self) -> None:
        pass


@dataclass
class Build:
    """One claimed build: reads pages after ``state.last_id`` and appends them."""

    app: Flask
    api: ComputeApi
    link_id: str
    pipeline_id: str
    email: str | None
    owner: str
    state: IndexState
    chemistry: chem_index.MoleculeWork = field(default_factory=chem_index.MoleculeWork)
    # The result count the API gave when the build was claimed (None: it gives none).
    expected: int | None = None
    # Index and write the pages in a child process (``page_child``): a background build.
    in_child: bool = False
    position: int = 0  # the results indexed so far (the next page's first position)

    def _bearer(self) -> str | None:
        # Minted per page: a long build outlives a token's few minutes.
        return share_tokens.mint(self.link_id, self.email) if self.email else None

    def _fetch(self, pool: ThreadPoolExecutor, after: str | None, raw: bool) -> Future:
        """Ask for the page after ``after`` in the pool (the token is minted here); with
        ``raw``, its body as sent (for the child, ``page_child``)."""
        if raw:
            return pool.submit(self.api.results, self.link_id, self.pipeline_id,
                               self._bearer(), limit=PAGE_SIZE, after_id=after, raw=True)
        return pool.submit(self.api.results, self.link_id, self.pipeline_id, self._bearer(),
                           limit=PAGE_SIZE, after_id=after)

    def _writer(self, engine):
        """Where the pages are indexed and written: a child process for a background
        build (``page_child``), the build thread for one inside a request."""
        url = shared_url(engine) if self.in_child else None
        if url is not None:
            try:
                return page_child.PageChild(url)
            except Exception as error:  # no child here (no processes?): the thread does it
                log.warning("index build without its page child: %s", type(error).__name__)
        return _HereWriter(engine)

    def run(self) -> None:
        """Read every missing page; on any failure give the lease up (resumable).

        The next page is asked for while this one is indexed and written (by the child in
        a background build, ``page_child``): the API's answer and the page's work overlap.
        It is asked for as soon as its cursor is read, before the previous page's answer is
        awaited, so the API is never idle while the child works (one page being fetched,
        at most ``writer.depth`` in the child: it finds the next page there when one is
        done, without waiting for this thread to wake).
        Each appended page's new molecules go to the chemistry child (``chem_index``).
        """
        engine = get_engine(self.app)
        after, self.position = self.state.last_id, self.state.indexed
        started = time.perf_counter()
        writer = None
        try:
            with (ThreadPoolExecutor(1, thread_name_prefix="index-page") as pool,
                  LeaseKeeper(lambda: self._renew(engine),
                              RENEW_EVERY.total_seconds()) as keeper):
                # The first page is asked for while the child starts (tens of ms): as
                # its body, read by the child (``page_child``) unless there is none.
                raw = self.in_child and shared_url(engine) is not None
                pending = self._fetch(pool, after, raw)
                writer = self._writer(engine)
                if raw and isinstance(writer, _HereWriter):  # no child after all (rare):
                    # the page asked again as records, the body left unread
                    raw = False
                    pending = self._fetch(pool, after, raw)
                while True:
                    body = pending.result()
                    # The child's appends renew the lease (and the keeper between them);
                    # a renewal here would wait for the child's write to the same row.
                    if keeper.lost or not (writer.renews or self._renew(engine)):
                        body = None
                    if body is None:
                        log.info("index build of a pipeline lost its lease; stopping")
                        return
                    if raw:  # the child reads the records; here, the cursor alone
                        page = page_child.envelope(body)
                        empty = page["empty"]
                    else:  # a page of only skipped records is not the end
                        page = body
                        empty = not (body.get("data") or body.get(UNREADABLE_RECORDS))
                    after = page.get("last_id") or after
                    more = bool(page.get("has_more")) and not empty
                    if more:  # asked before waiting for the child: the API never waits
                        pending = self._fetch(pool, after, raw)
                    # The earliest pages' answers: not kept if an append lost the lease.
                    while writer.waiting >= writer.depth:
                        if not self._done(writer.result()):
                            log.info("index build of a pipeline lost its lease; stopping")
                            return
                    # A page behind another in the child follows it (its count is not known here).
                    position = None if writer.waiting else self.position
                    writer.submit(body, position, self.pipeline_id,
                                  self.owner, after, more, utcnow(), LEASE)
                    if more:
                        continue
                    while writer.waiting:
                        if not self._done(writer.result()):
                            log.info("index build of a pipeline lost its lease; stopping")
                            return
                    if self.expected is not None and self.position > self.expected:
                        # More rows than the API counted: results were deleted (retention
                        # takes a pipeline's oldest, already indexed) or arrived meanwhile.
                        # Not ready: the next request compares with a fresh count (fewer:
                        # the index is dropped and rebuilt) and never shows a gone result.
                        with engine.begin() as conn:
                            store.release(conn, self.pipeline_id, self.owner,
                                          "count changed", utcnow())
                        return
                    self._finish(engine, writer.frame())
                    INDEX_BUILDS.labels("complete").inc()
                    INDEX_BUILD_SECONDS.observe(time.perf_counter() - started)
                    return
        except LinkNotFound:
            # The API no longer shows this pipeline through the link: keep nothing of it.
            if writer is not None:
                writer.drain()
            with engine.begin() as conn:
                store.delete(conn, self.pipeline_id)
        except Exception as error:  # any failure: resumable, never fatal
            INDEX_BUILDS.labels("failed").inc()
            name = str(error) if isinstance(error, page_child.PageChildFailed) \
                else type(error).__name__
            # Nothing is written once the lease is given up: the page in the child first.
            for drained in writer.drain() if writer is not None else ():
                if drained.kept:
                    self.position += drained.count
            log.warning("index build stopped after %d results: %s", self.position, name)
            with engine.begin() as conn:
                store.release(conn, self.pipeline_id, self.owner, name, utcnow())
        finally:
            if writer is not None:
                writer.close()
            self.chemistry.close()

    def _done(self, page: page_child.Appended) -> bool:
        """Count an appended page and start its molecules' chemistry; False if it was
        not kept (the lease was lost)."""
        if page.kept:
            self.position += page.count
            self.chemistry.add_page(page.smiles)
        return page.kept

    def _renew(self, engine) -> bool:
        """Extend the lease (not the index's version); False if it was lost."""
        with engine.begin() as conn:
            return store.renew(conn, self.pipeline_id, self.owner, utcnow(), LEASE)

    def _finish(self, engine, built: Frame | None) -> None:
        """Save the frame (``built`` by the page child, else from the store) with its
        molecules' chemistry, then mark the index ready: no visitor request builds the
        frame or computes the chemistry."""
        with engine.connect() as conn:
            done = store.get(conn, self.pipeline_id)
        if done is not None and done.lease_owner == self.owner:
            try:
                chem_index.save_frame(self.pipeline_id, done.version, self.chemistry,
                                      built)
            except Exception as error:  # the index is complete all the same: the first
                # request builds the frame and computes the chemistry lazily
                log.warning("saving the frame of a finished index failed: %s",
                            type(error).__name__)
        with engine.begin() as conn:
            store.finish(conn, self.pipeline_id, self.owner, utcnow())

    def run_in_background(self) -> None:
        """Run in a daemon thread with the app's context (for the store and tokens)."""
        self.in_child = True

        def target() -> None:
            with self.app.app_context():
                self.run()

        threading.Thread(target=target, name="index-build", daemon=True).start()


def _owner() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def current(pipeline_id: str) -> IndexState | None:
    """Return the index state of ``pipeline_id`` as the store has it now."""
    with get_engine().connect() as conn:
        return store.get(conn, pipeline_id)


def _sweep(app: Flask) -> None:
    """Delete indexes nobody used for a while (at most every few minutes per process)."""
    if time.monotonic() - _last_sweep[0] < _SWEEP_EVERY:
        return
    _last_sweep[0] = time.monotonic()
    idle = timedelta(hours=setting(app, "EXPLORE_INDEX_IDLE_HOURS"))
    with get_engine(app).begin() as conn:
        deleted = store.delete_unused(conn, utcnow() - idle)
    if deleted:
        log.info("deleted %d unused exploration indexes", deleted)


def ensure(link_id: str, pipeline: dict) -> IndexState:
    """Return the index of ``pipeline`` (read through ``link_id``), building what is missing.

    The caller has read the link through the API with the visitor's token just before.
    """
    app = current_app._get_current_object()  # the thread needs the app itself
    _sweep(app)
    pipeline_id = pipeline["id"]
    # What the run record says (``run_kinds.freshness``; count None: the API gives none).
    latest, status, count = run_kinds.freshness(pipeline)
    now = utcnow()
    engine = get_engine(app)
    with engine.begin() as conn:
        state = store.get(conn, pipeline_id)
        if state is not None and count is not None and state.indexed > count:
            store.delete(conn, pipeline_id)  # results were deleted: start over
            state = None
        if state is not None and (state.is_current(count, status, latest)
                                  or state.building(now)):
            store.touch(conn, state, now)
            return state
    owner = _owner()
    with engine.begin() as conn:
        claimed = store.claim(conn, pipeline_id, kind=run_kinds.pipeline_kind(pipeline).key,
                              target_count=count or 0, status=status, owner=owner, now=now,
                              lease=LEASE, latest_result_id=latest)
    if claimed is None:
        return current(pipeline_id) or state  # another worker got there first
    build = Build(app, api(), link_id, pipeline_id, identity.verified_email(), owner, claimed,
                  expected=count)
    # An unknown count is built in the background: it may be any size.
    missing = count - claimed.indexed if count is not None else None
    if missing is not None and missing <= setting(app, "EXPLORE_SYNC_LIMIT"):
        build.run()
        restart_deadline()  # the build spent the request's; an export's reads get a whole one
    else:
        build.run_in_background()
    return current(pipeline_id) or claimed
