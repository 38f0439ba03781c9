"""The demo's upkeep SQL: what is left of a seeded demo, and renewing its links.

``app.demo.upkeep`` decides; this module only reads the demo's rows back and moves a
link's ``expires_at``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.store import schema

_W, _P, _PR, _SL = schema.workspaces, schema.pipelines, schema.predictions, schema.share_links


@dataclass(frozen=True)
class Run:
    """A demo pipeline or prediction as stored: when it was made, how many results."""

    id: str
    created_at: datetime
    result_count: int  # 0 for predictions


@dataclass(frozen=True)
class Retention:
    """A workspace's data retention and whether it is archived."""

    unit: str  # hours | days
    value: int
    archived: bool


def runs(conn: Connection, pipeline_ids: list[str], prediction_ids: list[str]
         ) -> dict[str, Run]:
    """Return the stored runs among these ids (a purged one, a stub, is absent), by id."""
    found = {}
    if pipeline_ids:
        for row in conn.execute(sa.select(_P.c.id, _P.c.created_at, _P.c.result_count)
                                .where(_P.c.id.in_(pipeline_ids),
                                       _P.c.data_deleted_at.is_(None))):
            found[row.id] = Run(row.id, row.created_at, row.result_count)
    if prediction_ids:
        for row in conn.execute(sa.select(_PR.c.id, _PR.c.created_at)
                                .where(_PR.c.id.in_(prediction_ids),
                                       _PR.c.data_deleted_at.is_(None))):
            found[row.id] = Run(row.id, row.created_at, 0)
    return found


def retention(conn: Connection, workspace_id: str) -> Retention | None:
    """Return the workspace's data retention, or None when it does not exist."""
    row = conn.execute(sa.select(_W.c.data_retention_unit, _W.c.data_retention_value,
                                 _W.c.archived_at).where(_W.c.id == workspace_id)).first()
    return Retention(row[0], row[1], row[2] is not None) if row else None


def renew_link(conn: Connection, link_id: str, expires_at: datetime) -> bool:
    """Move a live (not archived) link's expiry to ``expires_at``; True if it was moved."""
    return conn.execute(_SL.update().where(_SL.c.id == link_id, _SL.c.archived_at.is_(None))
                        .values(expires_at=expires_at)).rowcount == 1
