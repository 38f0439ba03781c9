"""The background scan that reads each design's structure for its epitope and exposure.

``ensure(link_id, pipeline, state)`` is called by the results page of a protein pipeline
whose index is ready. When some indexed results have no reading yet and no worker holds
the scan's lease, it claims the lease and starts a daemon thread that:

- takes the next ``BATCH`` result ids without a reading (``store.epitopes.missing``);
- asks the API for their records through the link (fresh artifact URLs; the visitor's
  proof, a new token per batch for an email-mode link, as the index build does);
- reads their structure files, ``FETCHES`` at a time, each up to ``STRUCTURE_BYTES``
  (a bigger file is "unreadable", not read); each fetch (and each batch's API call) first
  waits, up to ``YIELD_SECONDS``, until the worker serves no request
  (``core.requests_in_flight``): through the embedded API a fetch holds the worker's
  GIL, which its requests would otherwise share;
- computes contacts and exposure (``contacts.read``: at most ``structure.contacts.MAX_ATOMS``
  atoms) in a child process (``chem.budget``'s worker ``CHILD``, forked from the
  chemistry's forkserver, at a lower CPU priority: ``CHILD_NICENESS``), a batch at a
  time, each file within ``READ_SECONDS`` (one that overruns is "unreadable"). The
  gemmi parse and the NumPy work are CPU-bound: in the worker's own threads they would
  hold its GIL for minutes over a large pipeline and slow every request of the worker
  (pages, exports) meanwhile, so the worker only fetches the files;
- saves the batch and renews the lease (``store.epitopes.save``).

Pipelines above ``MAX_RESULTS`` results are not scanned. A failure (API down, worker
killed) leaves what was saved; the next visit resumes with the results still missing.
Designed chains are the run input's binder chains, targets its target chains
(``structure.roles``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

from flask import Flask, current_app

from app.platform import share_tokens
from app.platform.settings import setting
from app.platform.timeutil import utcnow
from app.viewer.access import identity
from app.viewer.core import requests_in_flight
from app.viewer.core.api_client import ComputeApi, api
from app.viewer.core.artifacts import read_artifact, result_locator
from app.viewer.epitope import contacts
from app.viewer.provenance.roles import Role, result_roles
from app.viewer.runtime import budget
from app.viewer.store import epitopes as store
from app.viewer.store import get_engine
from app.viewer.store.result_index import IndexState
from app.viewer.structure.model import structure_format

log = logging.getLogger(__name__)

MAX_RESULTS = 100_000
BATCH = 100  # results per API call and per saved batch (the API's ids limit is 200)
FETCHES = 4  # structure files read at once
STRUCTURE_BYTES = 20 * 1024 * 1024
LEASE = timedelta(seconds=60)
CHILD = "epitope"  # the budgeted child process that reads the files
CHILD_NICENESS = 10  # background work: on a busy machine the workers' requests come first
READ_SECONDS = 60.0  # one file's reading (a model of MAX_ATOMS atoms takes seconds)
# How long a fetch waits for the worker's requests to end (``requests_in_flight``): under
# constant traffic the scan still reads FETCHES files a second.
YIELD_SECONDS = 1.0


def chains_of(record: dict, pipeline: dict) -> tuple[set[str], set[str]]:
    """Return (designed chains, target chains) of a result, by auth chain id."""
    roles = result_roles(record, pipeline)
    return ({c for c, role in roles.items() if role.is_binder},
            {c for c, role in roles.items() if role == Role.TARGET})


@dataclass
class Scan:
    """One claimed scan of a pipeline's designs."""

    app: Flask
    api: ComputeApi
    link_id: str
    pipeline: dict
    email: str | None
    owner: str
    indexed: int

    def _bearer(self, _link_id: str | None = None) -> str | None:
        return share_tokens.mint(self.link_id, self.email) if self.email else None

    def _fetch(self, result_id: str, records: dict) -> store.Design | tuple:
        """Return the structure file of ``result_id`` to read, as ``contacts.read_item``
        takes it; or the design's reading when there is no file to read (the API did not
        return the result, it has no structure, or the file is too large or unreachable)."""
        record = records.get(result_id)
        artifact = ((record or {}).get("artifacts") or {}).get("structure")
        if not artifact:
            return store.Design(result_id, "no_structure")
        requests_in_flight.wait_idle(YIELD_SECONDS)
        with self.app.app_context():  # a pool thread: the API client is the app's
            binders, targets = chains_of(record, self.pipeline)
            locate = result_locator(self.link_id, self.pipeline["id"], result_id,
                                    "structure", self._bearer)
            data = read_artifact(locate, STRUCTURE_BYTES, artifact)
        if data is None:
            return store.Design(result_id, "unreadable")
        return (data, structure_format(artifact), binders, targets)

    def _readings(self, ids: list[str], fetched: list) -> list[store.Design]:
        """Return each design's reading: the files of ``fetched`` read in the child process
        (``contacts.read_item``, ``READ_SECONDS`` each), the rest as ``_fetch`` gave them."""
        files = [item for item in fetched if isinstance(item, tuple)]
        answers = iter(budget.worker(CHILD, CHILD_NICENESS).run_each(
            "epitope", files, item_seconds=READ_SECONDS,
            total_seconds=READ_SECONDS * max(len(files), 1)) if files else ())
        designs = []
        for result_id, item in zip(ids, fetched, strict=True):
            if not isinstance(item, tuple):
                designs.append(item)
                continue
            found = next(answers)
            if isinstance(found, contacts.Reading):
                designs.append(store.Design(
                    result_id, "ok", tuple(f"{c}:{n}" for c, n in found.contacts),
                    found.exposed))
            else:  # an error's name, or OVERRUN
                log.info("structure not readable for its epitope: %s", found)
                designs.append(store.Design(result_id, "unreadable"))
        return designs

    def run(self) -> None:
        """Read every design without a reading; on a failure give the lease up."""
        engine, pid = get_engine(self.app), self.pipeline["id"]
        try:
            with ThreadPoolExecutor(FETCHES, thread_name_prefix="epitope") as pool:
                while True:
                    with engine.connect() as conn:
                        ids = store.missing(conn, pid, BATCH)
                    if not ids:
                        break
                    requests_in_flight.wait_idle(YIELD_SECONDS)
                    page = self.api.results(self.link_id, pid, self._bearer(),
                                            ids=ids, limit=len(ids))
                    records = {str(r.get("id")): r for r in page.get("data") or []}
                    # A result the API no longer returns is recorded without a structure.
                    fetched = list(pool.map(self._fetch, ids, [records] * len(ids)))
                    designs = self._readings(ids, fetched)
                    with engine.begin() as conn:
                        if not store.save(conn, pid, self.owner, designs, utcnow(), LEASE):
                            return  # another worker took the scan over
            with engine.begin() as conn:
                store.finish(conn, pid, self.owner, self.indexed, utcnow())
        except Exception as error:  # any failure: resumable, never fatal
            log.warning("epitope scan stopped: %s", type(error).__name__)
            with engine.begin() as conn:
                store.release(conn, pid, self.owner, type(error).__name__, utcnow())

    def run_in_background(self) -> None:
        """Run in a daemon thread with the app's context."""
        def target() -> None:
            with self.app.app_context():
                self.run()

        threading.Thread(target=target, name="epitope-scan", daemon=True).start()


def progress(pipeline_id: str) -> store.Scan | None:
    """Return the pipeline's scan as the store has it now."""
    with get_engine().connect() as conn:
        return store.get(conn, pipeline_id)


def ensure(link_id: str, pipeline: dict, state: IndexState) -> store.Scan | None:
    """Start (or resume) the scan of a ready index when designs are missing; its state.

    None for a pipeline above ``MAX_RESULTS``, which is not scanned.
    """
    if not state.ready or state.indexed > MAX_RESULTS:
        return None
    if not setting(current_app, "EPITOPE_SCAN"):
        return progress(state.pipeline_id)
    now = utcnow()
    scan = progress(state.pipeline_id)
    if scan is not None and (scan.running(now) or scan.finished_count == state.indexed):
        return scan
    owner = f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    with get_engine().begin() as conn:
        claimed = store.claim(conn, state.pipeline_id, owner, now, LEASE)
    if claimed:
        app = current_app._get_current_object()
        Scan(app, api(), link_id, pipeline, identity.verified_email(), owner,
             state.indexed).run_in_background()
    return progress(state.pipeline_id)

