"""Moving-window rate-limit counters in the viewer store, exact across workers and servers.

``hit`` counts one event of a key if fewer than ``limit`` were counted in the last
``window``. It first writes the key's row, which serializes every hit of that key: a row
lock in PostgreSQL (the other transaction waits, then reads the committed count), the
database's write lock in SQLite. So two workers can never both see "4 of 5" and both
count. The caller commits right after, to hold that lock only for these statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from app.platform.timeutil import utcnow
from app.viewer.store.schema import rate_limit_hits as hits
from app.viewer.store.schema import rate_limit_keys as keys

_INSERT = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


@dataclass(frozen=True)
class Window:
    """A key's state: hits counted in the window and when the oldest one leaves it."""

    count: int
    reset_at: datetime | None


def _lock_key(conn: Connection, key: str, until: datetime) -> None:
    insert = _INSERT[conn.dialect.name](keys).values(key=key, expires_at=until)
    conn.execute(insert.on_conflict_do_update(index_elements=[keys.c.key],
                                              set_={"expires_at": until}))


def _window(conn: Connection, key: str, since: datetime, window: timedelta) -> Window:
    count, oldest = conn.execute(
        sa.select(sa.func.count(), sa.func.min(hits.c.at))
        .where(hits.c.key == key, hits.c.at > since)
    ).one()
    return Window(count, oldest + window if oldest is not None else None)


def hit(conn: Connection, key: str, limit: int, window: timedelta) -> tuple[bool, Window]:
    """Count one hit of ``key`` unless ``limit`` hits fill the last ``window``.

    Returns whether it was counted, and the window as it was before this hit.
    """
    now = utcnow()
    _lock_key(conn, key, now + window)
    conn.execute(hits.delete().where(hits.c.key == key, hits.c.at <= now - window))
    state = _window(conn, key, now - window, window)
    if state.count >= limit:
        return False, state
    conn.execute(hits.insert().values(key=key, at=now, expires_at=now + window))
    return True, state


def peek(conn: Connection, key: str, window: timedelta) -> Window:
    """Return the hits of ``key`` in the last ``window``, without counting one."""
    return _window(conn, key, utcnow() - window, window)


def purge_expired(conn: Connection) -> int:
    """Delete the hits and keys whose windows have ended; return how many hits went."""
    now = utcnow()
    gone = conn.execute(hits.delete().where(hits.c.expires_at <= now)).rowcount
    conn.execute(keys.delete().where(keys.c.expires_at <= now))
    return gone
