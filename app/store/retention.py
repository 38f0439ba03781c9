"""Retention's SQL: what is older than a workspace's ``data_retention``, and deleting it.

The purge (orchestrated by ``app.jobs.retention``) works in small transactions. An expired
pipeline first becomes a *stub* (``stub_pipelines``: ``data_deleted_at`` set, ``input``
null; the row, its ``progress``, ``result_count`` and the share links covering it stay),
then its results and their artifact rows are deleted in batches. An expired prediction
becomes a stub in one step (``inputs``/``outputs`` null, artifact rows deleted). Age is
``created_at`` (the spec: data is kept for ``data_retention`` after it was made); a
pipeline's results go with it, and a result older than the cutoff in a younger pipeline
goes alone (the pipeline's ``result_count`` drops with it; a stub's count stays what the
run made, as its record says). A stub is never picked again, unless a crash left some of
its results: the next purge finishes them. Stubs block nothing: they are ordinary rows.

Concurrency. On PostgreSQL every batch picks its rows ``FOR UPDATE SKIP LOCKED``: two
purges at once take disjoint rows, never wait on each other's rows, and count each row
once. On SQLite a batch first takes the database's write lock (``lock_for_purge``), so
batches are serial and each sees what the last one committed. Files are not touched
here: a batch returns the ``storage_path`` of the artifact rows it deleted, and the caller
deletes a file after the commit, once ``referenced_paths`` says no row names it any more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.store import schema

_W, _P, _R = schema.workspaces, schema.pipelines, schema.results
_PR, _A = schema.predictions, schema.artifacts
# Serializes the file-deletion step of concurrent purges (PostgreSQL advisory lock key).
_FILE_SWEEP_LOCK = 0x5E7E_4710
# Bound of an IN list: well under SQLite's and PostgreSQL's parameter limits.
_CHUNK = 500


@dataclass(frozen=True)
class WorkspaceRetention:
    """A workspace's id and how long its data is kept."""

    id: str
    unit: str  # hours | days
    value: int

    def cutoff(self, now: datetime) -> datetime:
        """Return the instant before which this workspace's data has expired."""
        return now - timedelta(**{self.unit: self.value})


@dataclass
class Batch:
    """What one transaction picked and deleted, and the files its artifact rows named."""

    picked: int = 0
    pipelines: int = 0
    predictions: int = 0
    results: int = 0
    artifacts: int = 0
    paths: set[str] = field(default_factory=set)
    last: tuple[str, str] | None = None  # (pipeline id, result id) of the last result


def workspaces_page(conn: Connection, after_id: str | None, limit: int
                    ) -> list[WorkspaceRetention]:
    """Return the next ``limit`` workspaces (archived ones too) in id order."""
    query = sa.select(_W.c.id, _W.c.data_retention_unit, _W.c.data_retention_value)
    if after_id is not None:
        query = query.where(_W.c.id > after_id)
    rows = conn.execute(query.order_by(_W.c.id).limit(limit)).all()
    return [WorkspaceRetention(*row) for row in rows]


def lock_for_purge(conn: Connection, workspace_id: str) -> None:
    """On SQLite, take the database write lock now, before the batch reads anything.

    pysqlite begins a transaction only at the first write, so the reads that pick a batch
    would otherwise see a state another purge is about to change. An UPDATE that changes
    nothing is that first write. PostgreSQL needs none: rows are picked under row locks.
    """
    if conn.dialect.name == "sqlite":
        conn.execute(_W.update().where(_W.c.id == workspace_id).values(name=_W.c.name))


def _pick(conn: Connection, query) -> list:
    """Run a picking SELECT with ``FOR UPDATE SKIP LOCKED`` (SQLite: the write lock)."""
    return conn.execute(query.with_for_update(skip_locked=True)).all()


def expired_pipeline_ids(conn: Connection, workspace_id: str, cutoff: datetime,
                         after_id: str | None, limit: int) -> list[str]:
    """Return the next ``limit`` ids of the workspace's pipelines made before ``cutoff``
    that still hold data: not stubs yet, or stubs a crashed purge left results in."""
    has_results = sa.exists().where(_R.c.pipeline_id == _P.c.id)
    query = sa.select(_P.c.id).where(_P.c.workspace_id == workspace_id,
                                     _P.c.created_at < cutoff,
                                     sa.or_(_P.c.data_deleted_at.is_(None), has_results))
    if after_id is not None:
        query = query.where(_P.c.id > after_id)
    return list(conn.execute(query.order_by(_P.c.id).limit(limit)).scalars())


def purge_results_of(conn: Connection, pipeline_ids: list[str],
                     after: tuple[str, str] | None, limit: int) -> Batch:
    """Delete up to ``limit`` results of ``pipeline_ids`` (all expired), with artifacts.

    Walks the pipelines in list order from ``after`` (the last result of the previous
    batch), one index range per pipeline, so each query reads only what it deletes.
    """
    picked: list = []
    start = pipeline_ids.index(after[0]) if after and after[0] in pipeline_ids else 0
    for pipeline_id in pipeline_ids[start:]:
        query = sa.select(_R.c.id, _R.c.pipeline_id).where(_R.c.pipeline_id == pipeline_id)
        if after and after[0] == pipeline_id:
            query = query.where(_R.c.id > after[1])
        picked += _pick(conn, query.order_by(_R.c.id).limit(limit - len(picked)))
        if len(picked) >= limit:
            break
    batch = _delete_results(conn, picked)
    batch.last = tuple(picked[-1]) if picked else None
    return batch


def purge_old_results(conn: Connection, workspace_id: str, cutoff: datetime,
                      limit: int) -> Batch:
    """Delete up to ``limit`` results made before ``cutoff`` in the workspace's younger
    pipelines (results are normally younger than their pipeline: this is the odd case)."""
    query = (sa.select(_R.c.id, _R.c.pipeline_id)
             .join(_P, _P.c.id == _R.c.pipeline_id)
             .where(_P.c.workspace_id == workspace_id, _P.c.created_at >= cutoff,
                    _R.c.created_at < cutoff)
             .limit(limit).with_for_update(of=_R, skip_locked=True))
    return _delete_results(conn, conn.execute(query).all())


def _delete_results(conn: Connection, picked: list) -> Batch:
    """Delete the picked (result id, pipeline id) rows, their artifacts first, and lower
    their pipelines' ``result_count`` (in pipeline id order: no lock-order deadlock)."""
    batch = Batch(picked=len(picked))
    if not picked:
        return batch
    ids = [row[0] for row in picked]
    batch.artifacts, batch.paths = _delete_artifacts(conn, _A.c.result_id, ids)
    batch.results = conn.execute(sa.delete(_R).where(_R.c.id.in_(ids))).rowcount
    for pipeline_id, gone in sorted(Counter(row[1] for row in picked).items()):
        # A stub keeps the count its run made (its record's progress says so).
        conn.execute(_P.update().where(_P.c.id == pipeline_id, _P.c.data_deleted_at.is_(None))
                     .values(result_count=_P.c.result_count - gone))
    return batch


def _delete_artifacts(conn: Connection, owner, owner_ids: list[str]) -> tuple[int, set[str]]:
    """Delete the artifact rows of these owners; return how many and the paths they named."""
    paths = set(conn.execute(sa.select(_A.c.storage_path).where(owner.in_(owner_ids))
                             .distinct()).scalars())
    deleted = conn.execute(sa.delete(_A).where(owner.in_(owner_ids))).rowcount
    return deleted, paths


def stub_pipelines(conn: Connection, pipeline_ids: list[str], deleted_at: datetime) -> Batch:
    """Mark those of ``pipeline_ids`` not yet stubs as deleted at ``deleted_at``, ``input``
    null; their results go next (``purge_results_of``). Two purges stub each once."""
    picked = _pick(conn, sa.select(_P.c.id).where(_P.c.id.in_(pipeline_ids),
                                                  _P.c.data_deleted_at.is_(None))
                   .order_by(_P.c.id))
    ids = [row[0] for row in picked]
    batch = Batch(picked=len(ids))
    if ids:
        batch.pipelines = conn.execute(
            _P.update().where(_P.c.id.in_(ids), _P.c.data_deleted_at.is_(None))
            .values(data_deleted_at=deleted_at, input=sa.null())).rowcount
    return batch


def purge_predictions(conn: Connection, workspace_id: str, cutoff: datetime,
                      limit: int, deleted_at: datetime) -> Batch:
    """Turn up to ``limit`` of the workspace's predictions made before ``cutoff`` into
    stubs (deleted at ``deleted_at``, inputs and outputs null), deleting their artifact
    rows; the links covering them keep them (they say what was deleted)."""
    picked = _pick(conn, sa.select(_PR.c.id)
                   .where(_PR.c.workspace_id == workspace_id, _PR.c.created_at < cutoff,
                          _PR.c.data_deleted_at.is_(None))
                   .order_by(_PR.c.id).limit(limit))
    ids = [row[0] for row in picked]
    batch = Batch(picked=len(ids))
    if ids:
        batch.artifacts, batch.paths = _delete_artifacts(conn, _A.c.prediction_id, ids)
        batch.predictions = conn.execute(
            _PR.update().where(_PR.c.id.in_(ids))
            .values(data_deleted_at=deleted_at, inputs=sa.null(), outputs=sa.null())
        ).rowcount
    return batch


def release_test_data(conn: Connection, workspace_id: str, cutoff: datetime) -> bool:
    """Let test mode seed the workspace again once its expired test data is all gone.

    Synthetic test-mode data is seeded once (``test_data_seeded_at``); when the purge has
    deleted it (only stubs are left), clearing the mark makes the next test-key request
    seed a fresh set beside the stubs.
    """
    test_pipelines = sa.exists().where(_P.c.workspace_id == workspace_id,
                                       _P.c.livemode.is_(False),
                                       _P.c.data_deleted_at.is_(None))
    test_predictions = sa.exists().where(_PR.c.workspace_id == workspace_id,
                                         _PR.c.livemode.is_(False),
                                         _PR.c.data_deleted_at.is_(None))
    return conn.execute(
        _W.update().where(_W.c.id == workspace_id, _W.c.test_data_seeded_at < cutoff,
                          ~test_pipelines, ~test_predictions)
        .values(test_data_seeded_at=None)
    ).rowcount == 1


def lock_file_sweep(conn: Connection) -> None:
    """Serialize file deletion across purges until this transaction ends.

    Two purges that each deleted a row naming the same file may both find it unnamed
    after their commits; under this lock only the first finds the file still there.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_FILE_SWEEP_LOCK)))
    else:
        conn.execute(_W.update().where(sa.false()).values(name=_W.c.name))


def hold_off_file_sweep(conn: Connection) -> None:
    """Keep purges from deleting artifact files until this writer's transaction ends.

    A writer of artifact rows saves its (content-addressed, shared) files before its rows
    commit; a purge sweeping files in between would find such a file named by no row and
    delete it under the writer. Writers call this before saving files. On PostgreSQL it is
    the sweep's advisory lock taken shared: writers never wait for each other, only for a
    sweep in progress, and a sweep waits for them. SQLite has one writer at a time: the
    write lock, taken now, does the same.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock_shared(_FILE_SWEEP_LOCK)))
    else:
        conn.execute(_W.update().where(sa.false()).values(name=_W.c.name))


def referenced_paths(conn: Connection, paths: set[str]) -> set[str]:
    """Return those of ``paths`` that some artifact row still names."""
    found: set[str] = set()
    ordered = sorted(paths)
    for i in range(0, len(ordered), _CHUNK):
        chunk = ordered[i:i + _CHUNK]
        found.update(conn.execute(sa.select(_A.c.storage_path)
                                  .where(_A.c.storage_path.in_(chunk)).distinct()).scalars())
    return found


def reference_counts(conn: Connection, paths: set[str]) -> Counter:
    """Return how many artifact rows name each of ``paths`` (a dry run's file count)."""
    counts: Counter = Counter()
    ordered = sorted(paths)
    for i in range(0, len(ordered), _CHUNK):
        query = (sa.select(_A.c.storage_path, sa.func.count())
                 .where(_A.c.storage_path.in_(ordered[i:i + _CHUNK]))
                 .group_by(_A.c.storage_path))
        counts.update(dict(conn.execute(query).all()))
    return counts


def expired_counts(conn: Connection, workspace_id: str, cutoff: datetime
                   ) -> tuple[dict[str, int], Counter]:
    """Count what a purge of the workspace would delete, without deleting anything.

    Returns the row counts and, per file, how many of the doomed artifact rows name it
    (the caller compares with ``reference_counts`` across all workspaces).
    """
    doomed_results = (sa.select(_R.c.id).join(_P, _P.c.id == _R.c.pipeline_id)
                      .where(_P.c.workspace_id == workspace_id,
                             sa.or_(_P.c.created_at < cutoff, _R.c.created_at < cutoff)))
    doomed_predictions = sa.select(_PR.c.id).where(_PR.c.workspace_id == workspace_id,
                                                   _PR.c.created_at < cutoff,
                                                   _PR.c.data_deleted_at.is_(None))
    doomed_artifacts = sa.or_(_A.c.result_id.in_(doomed_results),
                              _A.c.prediction_id.in_(doomed_predictions))

    def count(query) -> int:
        return conn.execute(sa.select(sa.func.count()).select_from(query.subquery())
                            ).scalar_one()

    counts = {
        "pipelines": count(sa.select(_P.c.id).where(_P.c.workspace_id == workspace_id,
                                                    _P.c.created_at < cutoff,
                                                    _P.c.data_deleted_at.is_(None))),
        "predictions": count(doomed_predictions),
        "results": count(doomed_results),
        "artifacts": count(sa.select(_A.c.id).where(doomed_artifacts)),
    }
    paths = Counter(dict(conn.execute(
        sa.select(_A.c.storage_path, sa.func.count()).where(doomed_artifacts)
        .group_by(_A.c.storage_path)).all()))
    return counts, paths
