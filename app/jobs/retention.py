"""Retention enforced: ``purge-expired`` deletes what is older than each workspace's
``data_retention``, and sweeps the viewer's own caches to the same bound.

What goes (``app.store.retention`` has the SQL): the data of pipelines, predictions and
results made (``created_at``) before ``now - data_retention`` of their workspace: results,
artifact rows, a pipeline's ``input``, a prediction's ``inputs`` and ``outputs``, and each
artifact *file* once no remaining row names it (files are content-addressed and shared
between rows, also across workspaces). ``completed_at`` does not matter: the spec keeps
data for ``data_retention`` after it was made, and a run finishing late does not make its
data younger. A pipeline older than the cutoff goes with all its results.

What stays: a *stub* of each purged pipeline and prediction: its row
with ``data_deleted_at`` (the wall-clock time of the purge, not ``--as-of``), status,
times and ``progress`` as the run left them, so its record (the SDK's, whose
``data_deleted_at`` and null ``input`` say "data deleted") still answers, share links
still list it and the viewer says what was deleted and when; its results endpoint
answers an empty page. The counts (``pipelines``, ``predictions``) are the runs stubbed.
Also usage records (billing records, not results: the usage report reads a year back, and
they hold no data of the runs), share links themselves, workspaces, organizations, keys.

Order and crash safety: rows go in transactions of at most ``BATCH`` rows, children first,
and a file is deleted only after the transaction that deleted its last row committed, so
a crash leaves at worst an orphan file, never a row without its file. Repeating a purge
is a no-op; two at once split the rows between them (see ``app.store.retention``).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from app import artifact_storage
from app.platform.timeutil import isoformat, to_db, utcnow
from app.store import retention as rows

log = logging.getLogger(__name__)

BATCH = 500
KINDS = ("pipelines", "predictions", "results", "artifacts", "files")


@dataclass
class Tally:
    """What a purge deleted (or, in a dry run, would delete), in total and by workspace."""

    totals: Counter = field(default_factory=Counter)
    by_workspace: dict[str, Counter] = field(default_factory=dict)
    batches: int = 0
    purged_pipelines: list[str] = field(default_factory=list)

    def add(self, workspace_id: str, counts: dict[str, int]) -> None:
        """Count ``counts`` for ``workspace_id`` and in the totals."""
        self.by_workspace.setdefault(workspace_id, Counter()).update(counts)
        self.totals.update(counts)

    def add_batch(self, workspace_id: str, batch: rows.Batch) -> None:
        """Count one committed batch's rows."""
        self.batches += 1 if batch.picked else 0
        self.add(workspace_id, {"pipelines": batch.pipelines, "predictions": batch.predictions,
                                "results": batch.results, "artifacts": batch.artifacts})


def parse_as_of(text: str | None) -> datetime:
    """Return ``text`` (ISO 8601 with a time zone) as naive UTC; None means now.

    Raises ValueError with a message for the command line when it is malformed or has no
    zone: a bare local time would silently shift the cutoff by the server's offset.
    """
    if text is None:
        return to_db(datetime.now(UTC))
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not an ISO 8601 date and time: {text!r}") from None
    if value.tzinfo is None:
        raise ValueError(f"needs a time zone, e.g. 2026-01-31T12:00:00Z or +00:00: {text!r}")
    return to_db(value)


def purge_api(engine, config, now: datetime, *, dry_run: bool = False,
              batch: int = BATCH) -> Tally:
    """Purge every workspace's expired data (or count it, ``dry_run``); return the tally."""
    store = artifact_storage.open_store(config)
    tally = Tally()
    after, seen = None, []
    doomed_files: dict[str, tuple[str, int]] = {}  # dry run: path -> (last workspace, rows)
    while True:
        with engine.connect() as conn:
            page = rows.workspaces_page(conn, after, 200)
        for workspace in page:
            cutoff = workspace.cutoff(now)
            if dry_run:
                _count_workspace(engine, workspace.id, cutoff, tally, doomed_files)
            else:
                _purge_workspace(engine, store, workspace.id, cutoff, batch, tally)
                _log(workspace, tally, "purged")
        seen += page if dry_run else []
        if len(page) < 200:
            break
        after = page[-1].id
    if dry_run:  # files are known once every workspace is counted
        _count_files(engine, doomed_files, tally)
        for workspace in seen:
            _log(workspace, tally, "would purge")
    return tally


def _log(workspace: rows.WorkspaceRetention, tally: Tally, verb: str) -> None:
    """Log one workspace's counts, if it had anything expired."""
    done = tally.by_workspace.get(workspace.id)
    if done and any(done.values()):
        log.info("%s workspace %s (retention %d %s): %s", verb, workspace.id,
                 workspace.value, workspace.unit,
                 ", ".join(f"{done[kind]} {kind}" for kind in KINDS))


def _purge_workspace(engine, store, workspace_id: str, cutoff: datetime, batch: int,
                     tally: Tally) -> None:
    """Delete one workspace's expired rows in batches, each batch's freed files after it."""
    deleted_at = utcnow()  # when the data goes, whatever the ``--as-of`` cutoff

    def run(step) -> rows.Batch:
        with engine.begin() as conn:
            rows.lock_for_purge(conn, workspace_id)
            done = step(conn)
        tally.add_batch(workspace_id, done)
        if done.paths:
            tally.add(workspace_id, {"files": _delete_files(engine, store, done.paths)})
        return done

    after_pipeline = None
    while True:
        with engine.connect() as conn:
            expired = rows.expired_pipeline_ids(conn, workspace_id, cutoff, after_pipeline,
                                                batch)
        if not expired:
            break
        # The stub first: from its commit on, readers see the run as deleted, never a
        # run whose results shrink batch by batch.
        run(partial(rows.stub_pipelines, pipeline_ids=expired, deleted_at=deleted_at))
        position = None
        while True:
            done = run(partial(rows.purge_results_of, pipeline_ids=expired, after=position,
                               limit=batch))
            if done.picked < batch:
                break
            position = done.last
        # The viewer drops their indexes (app.viewer.explore.index.sweep).
        tally.purged_pipelines += expired
        after_pipeline = expired[-1]
    for step in (rows.purge_old_results,
                 partial(rows.purge_predictions, deleted_at=deleted_at)):
        while run(partial(step, workspace_id=workspace_id, cutoff=cutoff, limit=batch)
                  ).picked == batch:
            pass
    with engine.begin() as conn:
        rows.release_test_data(conn, workspace_id, cutoff)


def _delete_files(engine, store, paths: set[str]) -> int:
    """Delete the files of ``paths`` that no artifact row names any more; return how many.

    Under the file-sweep lock, so that two purges freeing the same file count it once.
    """
    deleted = 0
    with engine.begin() as conn:
        rows.lock_file_sweep(conn)
        for path in sorted(paths - rows.referenced_paths(conn, paths)):
            if store.exists(path):
                store.delete(path)
                deleted += 1
    return deleted


def _count_workspace(engine, workspace_id: str, cutoff: datetime, tally: Tally,
                     doomed_files: dict[str, tuple[str, int]]) -> None:
    """Count one workspace's expired rows; note which files its doomed rows name."""
    with engine.connect() as conn:
        counts, paths = rows.expired_counts(conn, workspace_id, cutoff)
    tally.add(workspace_id, counts)
    for path, named in paths.items():
        # A file shared across workspaces is freed by the last one purged (id order).
        doomed_files[path] = (workspace_id, doomed_files.get(path, ("", 0))[1] + named)


def _count_files(engine, doomed_files: dict[str, tuple[str, int]], tally: Tally) -> None:
    """Count the files a purge would free: those every naming row of which is doomed."""
    with engine.connect() as conn:
        named = rows.reference_counts(conn, set(doomed_files))
    for path, (workspace_id, doomed) in doomed_files.items():
        if named[path] == doomed:
            tally.add(workspace_id, {"files": 1})


def api_step(app, context: dict) -> dict:
    """``purge-expired``'s step for the compute API of ``app`` (see ``app.jobs.cli.add_purge``).

    Notes the purged pipelines in ``context`` for the viewer's step, which drops their
    exploration indexes.
    """
    from app.platform.db import get_engine

    tally = purge_api(get_engine(app), app.config, context["now"],
                      dry_run=context["dry_run"])
    context.setdefault("purged_pipelines", []).extend(tally.purged_pipelines)
    return {
        "totals": {kind: tally.totals[kind] for kind in KINDS},
        "workspaces": [
            {"workspace_id": workspace_id, **{kind: counts[kind] for kind in KINDS}}
            for workspace_id, counts in sorted(tally.by_workspace.items())
            if any(counts.values())
        ],
        "batches": tally.batches,
    }


def run(steps, now: datetime, *, dry_run: bool) -> dict:
    """Run the purge ``steps`` of an app as of ``now``; return the JSON summary."""
    start = time.perf_counter()
    context = {"now": now, "dry_run": dry_run, "purged_pipelines": []}
    out: dict = {"as_of": isoformat(now), "dry_run": dry_run}
    for step in steps:
        out.update(step(context))
    out["seconds"] = round(time.perf_counter() - start, 3)
    return out
