"""The exploration index's build state: which pipelines are indexed, how far, by whom.

One row of ``viewer_result_indexes`` per pipeline. A worker that wants to build or refresh
an index first *claims* it (a lease of a few seconds it renews with every page it appends, and
``renew``s while a page is on its way or being read, so a page slower than the lease
under load never lets a second worker start the same build);
a worker whose claim fails leaves the build to the holder, so two workers never build the
same index at once, and a holder that dies (killed worker, API down) lets its lease run
out and the next request resumes from ``last_id``. Every append checks the lease in the
same transaction, so a holder that lost its lease writes nothing.

Indexes are caches of what the API returned: ``delete_unused`` drops those nobody used for
a while and ``delete`` the one of a pipeline the API no longer returns; ``purge-expired``
also drops those of purged pipelines and any made longer ago than the longest retention
(``expired``).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from app.viewer.store.schema import (
    epitope_contacts,
    epitope_scans,
    index_frames,
    indexed_records,
    indexed_results,
    result_indexes,
)

_INSERT = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
# A use refreshes last_used_at at most this often (not a write per page view).
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class IndexState:
    """One pipeline's index: how far it is built and towards what."""

    pipeline_id: str
    kind: str
    state: str  # "building" | "ready"
    target_count: int
    pipeline_status: str
    indexed: int
    last_id: str | None
    version: int
    lease_owner: str | None
    lease_until: datetime | None
    failure: str | None
    last_used_at: datetime
    # The API's ``progress.latest_result_id`` the index is (or is being) brought up to.
    latest_result_id: str | None = None
    # When this index of the pipeline was made (``generation``).
    created_at: datetime | None = None
    # When its state last changed (for a ready index: when it became ready, or was
    # brought up to date): a benchmark reads a build's end here, not by polling.
    updated_at: datetime | None = None

    @property
    def ready(self) -> bool:
        """Whether the whole set was read at least once (queries may be answered)."""
        return self.state == "ready"

    def is_current(self, result_count: int | None, status: str,
                   latest_result_id: str | None = None) -> bool:
        """Whether it holds what the API says the pipeline has: the same latest result
        and status, and at least its count (None: a count the API does not give)."""
        return (self.ready and self.pipeline_status == status
                and self.latest_result_id == latest_result_id
                and (result_count is None or self.indexed >= result_count))

    @property
    def generation(self) -> int:
        """Which index of the pipeline this is: its creation time in microseconds.

        ``version`` starts at 0 again when an index is deleted and made anew (results
        deleted by retention, an unused index swept): the caches of a worker (frames,
        answers, kept pages) and the frame files of a machine are keyed by this too, so
        a new index never meets what an earlier one of the same pipeline left."""
        if self.created_at is None:
            return 0
        return calendar.timegm(self.created_at.utctimetuple()) * 1_000_000 \
            + self.created_at.microsecond

    def building(self, now: datetime) -> bool:
        """Whether a worker holds a live lease on it."""
        return self.lease_until is not None and self.lease_until > now


def _state(row) -> IndexState:
    return IndexState(
        row.pipeline_id, row.kind, row.state, row.target_count, row.pipeline_status,
        row.indexed, row.last_id, row.version, row.lease_owner, row.lease_until,
        row.failure, row.last_used_at, row.latest_result_id, row.created_at, row.updated_at,
    )


def get(conn: Connection, pipeline_id: str) -> IndexState | None:
    """Return the index state of ``pipeline_id``, or None if it was never indexed."""
    row = conn.execute(sa.select(result_indexes).where(
        result_indexes.c.pipeline_id == pipeline_id)).first()
    return _state(row) if row else None


def claim(conn: Connection, pipeline_id: str, *, kind: str, target_count: int, status: str,
          owner: str, now: datetime, lease: timedelta,
          latest_result_id: str | None = None) -> IndexState | None:
    """Take the lease on ``pipeline_id``'s index (creating it), or None if held by another.

    ``target_count``, ``status`` and ``latest_result_id`` are what the API says the
    pipeline has now (what the build brings the index up to). The caller commits at once:
    the lease is what other workers look at.
    """
    insert = _INSERT[conn.dialect.name](result_indexes).values(
        pipeline_id=pipeline_id, kind=kind, state="building", target_count=target_count,
        pipeline_status=status, latest_result_id=latest_result_id, indexed=0, last_id=None,
        version=0, created_at=now, updated_at=now, last_used_at=now,
    )
    conn.execute(insert.on_conflict_do_nothing(index_elements=[result_indexes.c.pipeline_id]))
    table = result_indexes.c
    claimed = conn.execute(
        sa.update(result_indexes)
        .where(table.pipeline_id == pipeline_id)
        .where(sa.or_(table.lease_until.is_(None), table.lease_until < now,
                      table.lease_owner == owner))
        .values(lease_owner=owner, lease_until=now + lease, target_count=target_count,
                pipeline_status=status, latest_result_id=latest_result_id, failure=None,
                updated_at=now)
    ).rowcount
    return get(conn, pipeline_id) if claimed else None


def append(conn: Connection, pipeline_id: str, *, owner: str, columns: dict[str, list],
           records: list[tuple[str, str]], last_id: str, now: datetime, lease: timedelta,
           skipped: int = 0) -> bool:
    """Add one API page to the index and renew the lease; False if the lease was lost.

    ``columns`` are ``index_rows.page_rows``' columns (a list of values per key, with
    ``position``; their ``search`` text goes with the record; left as they are),
    ``records`` the (result id, stored record) pairs; ``skipped`` the page's records
    that could not be read (no row): ``indexed`` counts the API's results read, rows and
    skipped, so an index with skipped records is still current against the run's count.
    The lease check comes first, in this transaction.
    """
    current = get(conn, pipeline_id)
    if current is None or current.lease_owner != owner:
        return False
    size = len(records)
    kept = conn.execute(
        sa.update(result_indexes)
        .where(result_indexes.c.pipeline_id == pipeline_id)
        .where(result_indexes.c.lease_owner == owner)
        .values(indexed=result_indexes.c.indexed + size + skipped, last_id=last_id,
                version=result_indexes.c.version + 1,
                lease_until=now + lease, updated_at=now)
    ).rowcount
    if not kept:
        return False
    if size:
        pipeline = [pipeline_id] * size
        # A column with no value on this page is left out of the insert (its rows read
        # NULL all the same): a protein page has no chemistry, ADME or SMILES, and each
        # value bound costs the driver as much as a number does.
        values = {key: column for key, column in columns.items()
                  if key != "search" and column.count(None) != size}
        values["pipeline_id"] = pipeline
        _insert_many(conn, indexed_results, values)
        rids, texts = zip(*records, strict=True)
        _insert_many(conn, indexed_records, {"pipeline_id": pipeline, "result_id": rids,
                                             "record": texts, "search": columns["search"]})
    return True


# (dialect and its driver's style, table, column keys) -> the compiled insert: a build's
# pages all have one shape.
_compiled: dict[tuple, sa.engine.Compiled] = {}


def _insert_many(conn: Connection, table: sa.Table, columns: dict[str, list]) -> None:
    """Insert the rows of ``columns`` (a list of values per key) in one driver executemany.

    The statement is compiled once per shape and the rows go to the driver as they are
    (tuples for SQLite's ``?``, dicts for psycopg's named style), zipped from the
    columns: SQLAlchemy's per-row parameter processing would be a large part of a page's
    write.
    The index's columns are text and numbers, which no bind processor of either dialect
    changes.
    """
    keys = tuple(columns)
    shape = (type(conn.dialect), conn.dialect.paramstyle, table.name, keys)
    compiled = _compiled.get(shape)
    if compiled is None:
        if len(_compiled) >= 256:  # pages of unusual shapes: never an unbounded cache
            _compiled.clear()
        compiled = sa.insert(table).compile(dialect=conn.dialect, column_keys=list(keys))
        _compiled[shape] = compiled
    if compiled.positiontup is not None:
        conn.exec_driver_sql(compiled.string, list(zip(
            *(columns[key] for key in compiled.positiontup), strict=True)))
    else:
        conn.exec_driver_sql(compiled.string, [dict(zip(keys, row, strict=True))
                                               for row in zip(*columns.values(), strict=True)])


def renew(conn: Connection, pipeline_id: str, owner: str, now: datetime,
          lease: timedelta) -> bool:
    """Extend ``owner``'s lease on ``pipeline_id`` without touching the index (its
    version, rows and answers stay); False if the lease was lost already."""
    return conn.execute(
        sa.update(result_indexes)
        .where(result_indexes.c.pipeline_id == pipeline_id)
        .where(result_indexes.c.lease_owner == owner)
        .values(lease_until=now + lease)
    ).rowcount > 0


def finish(conn: Connection, pipeline_id: str, owner: str, now: datetime) -> None:
    """Mark the index read to the end (``ready``) and give the lease up."""
    conn.execute(
        sa.update(result_indexes)
        .where(result_indexes.c.pipeline_id == pipeline_id)
        .where(result_indexes.c.lease_owner == owner)
        .values(state="ready", lease_owner=None, lease_until=None, updated_at=now)
    )


def release(conn: Connection, pipeline_id: str, owner: str, failure: str, now: datetime
            ) -> None:
    """Give the lease up after a failure (the next request resumes from ``last_id``)."""
    conn.execute(
        sa.update(result_indexes)
        .where(result_indexes.c.pipeline_id == pipeline_id)
        .where(result_indexes.c.lease_owner == owner)
        .values(lease_owner=None, lease_until=None, failure=failure[:200], updated_at=now)
    )


def touch(conn: Connection, state: IndexState, now: datetime) -> None:
    """Note a use of the index (at most once a minute), which keeps it from expiring."""
    if now - state.last_used_at >= TOUCH_EVERY:
        conn.execute(sa.update(result_indexes)
                     .where(result_indexes.c.pipeline_id == state.pipeline_id)
                     .values(last_used_at=now))


def delete(conn: Connection, pipeline_id: str) -> bool:
    """Delete ``pipeline_id``'s index: its rows, records, saved frame and state.

    Returns whether there was one.
    """
    for table in (index_frames, indexed_records, indexed_results, epitope_contacts,
                  epitope_scans):  # epitopes (epitopes.py) are read from these results
        conn.execute(sa.delete(table).where(table.c.pipeline_id == pipeline_id))
    return conn.execute(sa.delete(result_indexes).where(
        result_indexes.c.pipeline_id == pipeline_id)).rowcount > 0


def indexed_among(conn: Connection, pipeline_ids: list[str]) -> list[str]:
    """Return those of ``pipeline_ids`` that have an index (the purge drops them)."""
    found: list[str] = []
    for i in range(0, len(pipeline_ids), 500):
        found += conn.execute(sa.select(result_indexes.c.pipeline_id).where(
            result_indexes.c.pipeline_id.in_(pipeline_ids[i:i + 500]))).scalars()
    return found


def expired(conn: Connection, *, built_before: datetime, used_before: datetime,
            now: datetime) -> list[str]:
    """Return the pipelines whose index was made before ``built_before`` (its results are
    older than any workspace keeps them) or last used before ``used_before``; indexes a
    worker is building now are left to it."""
    table = result_indexes.c
    return list(conn.execute(
        sa.select(table.pipeline_id)
        .where(sa.or_(table.created_at < built_before, table.last_used_at < used_before))
        .where(sa.or_(table.lease_until.is_(None), table.lease_until < now))
        .order_by(table.pipeline_id)
    ).scalars())


def delete_unused(conn: Connection, used_before: datetime, limit: int = 20) -> int:
    """Delete up to ``limit`` indexes last used before ``used_before`` and not being built."""
    stale = conn.execute(
        sa.select(result_indexes.c.pipeline_id)
        .where(result_indexes.c.last_used_at < used_before)
        .where(sa.or_(result_indexes.c.lease_until.is_(None),
                      result_indexes.c.lease_until < used_before))
        .limit(limit)
    ).scalars().all()
    for pipeline_id in stale:
        delete(conn, pipeline_id)
    return len(stale)
