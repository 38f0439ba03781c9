"""Keyset (id-cursor) pagination over any SELECT, identical for every list endpoint.

A page fetches ``limit + 1`` rows ordered by id (descending when walking backward) to learn
whether another page exists without a COUNT; the cursor is an index seek, so a page deep
inside a large list costs the same as the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection


@dataclass(frozen=True)
class Page:
    """Rows of one page in ascending id order, and whether more lie in the walk direction."""

    rows: list[Any]
    has_more: bool


def keyset_page(
    conn: Connection,
    query: sa.Select,
    id_column: sa.ColumnElement,
    *,
    limit: int,
    after_id: str | None = None,
    before_id: str | None = None,
) -> Page:
    """Run ``query`` for one page: ids after ``after_id`` or before ``before_id``.

    ``has_more`` means: another page exists after the last row (forward walks) or before
    the first row (backward walks, ``before_id`` given), which is what the SDK's
    auto-pager follows.
    """
    if after_id is not None:
        query = query.where(id_column > after_id)
    if before_id is not None:
        query = query.where(id_column < before_id).order_by(id_column.desc())
    else:
        query = query.order_by(id_column.asc())
    rows = list(conn.execute(query.limit(limit + 1)))
    has_more = len(rows) > limit
    rows = rows[:limit]
    if before_id is not None:
        rows.reverse()
    return Page(rows=rows, has_more=has_more)
