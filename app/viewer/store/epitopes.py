"""Epitopes in the store: each design's contacted target residues and exposed M/W.

A pipeline's scan (``app.viewer.epitope.scan``) *claims* its row of
``viewer_epitope_scans`` (a lease, as the index build does), reads the structure files of
the indexed results that have no row in ``viewer_epitope_contacts`` yet, and saves them a
batch at a time, renewing the lease in the same transaction: a scan that lost its lease
writes nothing, and a scan stopped midway resumes with the results still missing.

Saving a batch also sets the oxidation liability of those results in the index
(``liability_oxidation``: exposed M/W; ``liability_count`` gains them), and the index's
version is bumped when a scan finishes, so that answers cached per version are redone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from app.viewer.store.schema import (
    epitope_contacts,
    epitope_scans,
    indexed_results,
    result_indexes,
)

_INSERT = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
C, S = epitope_contacts.c, epitope_scans.c


@dataclass(frozen=True)
class Scan:
    """A pipeline's scan: how many designs were read, and whether one is running."""

    done: int
    finished_count: int | None
    lease_until: datetime | None
    failure: str | None

    def running(self, now: datetime) -> bool:
        """Whether a worker holds a live lease on it."""
        return self.lease_until is not None and self.lease_until > now


@dataclass(frozen=True)
class Design:
    """One design's reading: ``state`` ok / no_structure / unreadable."""

    result_id: str
    state: str
    contacts: tuple[str, ...] = ()  # "B:12"
    exposed: tuple[int, ...] | None = None


def get(conn: Connection, pipeline_id: str) -> Scan | None:
    """Return the scan of ``pipeline_id``, or None if none was started."""
    row = conn.execute(sa.select(epitope_scans).where(S.pipeline_id == pipeline_id)).first()
    return Scan(row.done, row.finished_count, row.lease_until, row.failure) if row else None


def claim(conn: Connection, pipeline_id: str, owner: str, now: datetime,
          lease: timedelta) -> bool:
    """Take the lease on the pipeline's scan (creating its row); False if another has it."""
    conn.execute(_INSERT[conn.dialect.name](epitope_scans).values(
        pipeline_id=pipeline_id, done=0, updated_at=now).on_conflict_do_nothing(
        index_elements=[S.pipeline_id]))
    return conn.execute(
        sa.update(epitope_scans).where(S.pipeline_id == pipeline_id)
        .where(sa.or_(S.lease_until.is_(None), S.lease_until < now, S.lease_owner == owner))
        .values(lease_owner=owner, lease_until=now + lease, failure=None, updated_at=now)
    ).rowcount > 0


def missing(conn: Connection, pipeline_id: str, limit: int) -> list[str]:
    """Return up to ``limit`` indexed result ids without a reading, in id order."""
    R = indexed_results.c
    known = sa.select(C.result_id).where(C.pipeline_id == pipeline_id).where(
        C.result_id == R.result_id)
    return list(conn.execute(
        sa.select(R.result_id).where(R.pipeline_id == pipeline_id)
        .where(~sa.exists(known)).order_by(R.result_id).limit(limit)).scalars())


def save(conn: Connection, pipeline_id: str, owner: str, designs: list[Design],
         now: datetime, lease: timedelta) -> bool:
    """Store a batch of readings and renew the lease; False (nothing kept) if it was lost."""
    kept = conn.execute(
        sa.update(epitope_scans).where(S.pipeline_id == pipeline_id)
        .where(S.lease_owner == owner)
        .values(done=S.done + len(designs), lease_until=now + lease, updated_at=now)
    ).rowcount
    if not kept or not designs:
        return bool(kept)
    conn.execute(sa.insert(epitope_contacts), [
        {"pipeline_id": pipeline_id, "result_id": d.result_id, "state": d.state,
         "contacts": f" {' '.join(d.contacts)} " if d.contacts else "",
         "exposed": None if d.exposed is None else ",".join(map(str, d.exposed))}
        for d in designs])
    R = indexed_results.c
    for d in designs:  # the oxidation liability: exposed M/W only, once they are known
        if d.exposed is None:
            continue
        conn.execute(
            sa.update(indexed_results)
            .where(R.pipeline_id == pipeline_id).where(R.result_id == d.result_id)
            .where(R.liability_oxidation.is_(None))
            .values(liability_oxidation=len(d.exposed),
                    liability_count=R.liability_count + len(d.exposed)))
    return True


def finish(conn: Connection, pipeline_id: str, owner: str, count: int, now: datetime
           ) -> None:
    """Mark the scan complete up to ``count`` indexed results; bump the index's version."""
    done = conn.execute(
        sa.update(epitope_scans).where(S.pipeline_id == pipeline_id)
        .where(S.lease_owner == owner)
        .values(finished_count=count, lease_owner=None, lease_until=None, updated_at=now)
    ).rowcount
    if done:
        conn.execute(sa.update(result_indexes)
                     .where(result_indexes.c.pipeline_id == pipeline_id)
                     .values(version=result_indexes.c.version + 1))


def release(conn: Connection, pipeline_id: str, owner: str, failure: str, now: datetime
            ) -> None:
    """Give the lease up after a failure (the next visit resumes the scan)."""
    conn.execute(
        sa.update(epitope_scans).where(S.pipeline_id == pipeline_id)
        .where(S.lease_owner == owner)
        .values(lease_owner=None, lease_until=None, failure=failure[:200], updated_at=now))


def readings(conn: Connection, pipeline_id: str) -> list[tuple[str, str]]:
    """Return (result id, contacts text " B:12 B:15 ") of every design read as ok."""
    return [tuple(row) for row in conn.execute(
        sa.select(C.result_id, C.contacts).where(C.pipeline_id == pipeline_id)
        .where(C.state == "ok").order_by(C.result_id))]


def design(conn: Connection, pipeline_id: str, result_id: str) -> Design | None:
    """Return one design's reading, or None before it was read."""
    row = conn.execute(sa.select(epitope_contacts).where(C.pipeline_id == pipeline_id)
                       .where(C.result_id == result_id)).first()
    if row is None:
        return None
    exposed = None if row.exposed is None else tuple(
        int(x) for x in row.exposed.split(",") if x)
    return Design(row.result_id, row.state, tuple(row.contacts.split()), exposed)


def delete(conn: Connection, pipeline_id: str) -> None:
    """Delete the pipeline's readings and scan (with its index)."""
    for table in (epitope_contacts, epitope_scans):
        conn.execute(sa.delete(table).where(table.c.pipeline_id == pipeline_id))
