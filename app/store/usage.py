"""Usage records: billed quantities per workspace and application, and their report."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.engine import Connection

from app.store import schema


def add_usage_records(conn: Connection, records: Iterable[dict]) -> int:
    """Insert usage records and return how many were written.

    Each record has ``organization_id``, ``workspace_id``, ``application``, ``quantity``
    (whole number) and ``recorded_at`` (epoch seconds, UTC).
    """
    rows = list(records)
    if rows:
        conn.execute(schema.usage_records.insert(), rows)
    return len(rows)
