"""Usage records: billed quantities per workspace and application, and their report."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa
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


# Group keys in their fixed order of sorting (after the bucket start).
GROUP_COLUMNS = ("application", "workspace_id")


def _after(columns: list[sa.ColumnElement], values: list) -> sa.ColumnElement:
    """Return ``(columns) > (values)`` lexicographically, spelled out for any dialect."""
    first, rest = columns[0], columns[1:]
    if not rest:
        return first > values[0]
    return sa.or_(first > values[0], sa.and_(first == values[0], _after(rest, values[1:])))


def usage_buckets(
    conn: Connection,
    organization_id: str,
    *,
    start: int,
    end: int,
    bucket_seconds: int,
    group_by: list[str],
    applications: list[str] | None = None,
    workspace_ids: list[str] | None = None,
    after: list | None = None,
    limit: int,
) -> tuple[list[dict], bool]:
    """Sum quantities of records in ``[start, end)`` (epoch seconds) per UTC bucket.

    Buckets start at multiples of ``bucket_seconds`` since the epoch (UTC hours or days).
    Rows come as dicts ``{bucket, quantity, <group columns>}`` ordered by bucket, then by
    the group columns in ``GROUP_COLUMNS`` order; only buckets holding records appear.
    ``after`` is the sort key of the last row of the previous page (keyset pagination).

    A page costs what its own buckets hold, wherever it sits in the range: the aggregate
    first covers only the next ``limit + 1`` buckets from the cursor (each bucket with
    records gives at least one row, so that is enough unless buckets are empty), and is
    widened fourfold until it holds ``limit + 1`` rows or reaches ``end``. Rows found in a
    window are exactly the first rows of the whole range: every later row has a later
    bucket.
    """
    u = schema.usage_records
    size = sa.literal_column(str(int(bucket_seconds)), sa.BigInteger)
    bucket = (u.c.recorded_at - u.c.recorded_at % size).label("bucket")
    groups = [u.c[name] for name in GROUP_COLUMNS if name in group_by]
    query = (
        sa.select(bucket, *groups, sa.func.sum(u.c.quantity).label("quantity"))
        .where(
            u.c.organization_id == organization_id,
            u.c.recorded_at >= start,
        )
        .group_by(bucket, *groups)
        .order_by(bucket, *groups)
        .limit(limit + 1)
    )
    if applications:
        query = query.where(u.c.application.in_(applications))
    if workspace_ids:
        query = query.where(u.c.workspace_id.in_(workspace_ids))
    if after is not None:
        # Rows before the cursor's bucket cannot qualify: skip them in the index scan.
        query = query.where(u.c.recorded_at >= after[0])
        query = query.having(_after([bucket.element, *groups], after))
    first = int(after[0]) if after is not None else start
    first -= first % bucket_seconds
    span = (limit + 1) * bucket_seconds
    while True:
        upper = min(end, first + span)
        found = conn.execute(query.where(u.c.recorded_at < upper)).all()
        if len(found) > limit or upper >= end:
            break
        span *= 4
    rows = [{**row._mapping, "quantity": int(row.quantity)} for row in found]
    return rows[:limit], len(rows) > limit
