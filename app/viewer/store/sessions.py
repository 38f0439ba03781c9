"""Browser sessions kept server-side (viewer store): one row per session, keyed by a hash.

The cookie carries a random id; ``app.viewer.access.sessions`` hashes it (keyed with the
app secret) and calls these functions with the hash, so the table alone names no cookie.
Expiry is enforced here on every read, not by the cookie: a row past ``expires_at`` reads
as no session. Deleting the row (sign-out) ends the session for every copy of the cookie.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.platform.timeutil import utcnow
from app.viewer.store.schema import sessions as table


@dataclass(frozen=True)
class SessionRecord:
    """A stored session: its serialized data and when it ends."""

    id_hash: str
    email: str | None
    data: str
    created_at: datetime
    expires_at: datetime


def get_session(conn: Connection, id_hash: str) -> SessionRecord | None:
    """Return the live session keyed ``id_hash``, or None (unknown or expired)."""
    row = conn.execute(
        sa.select(table).where(table.c.id_hash == id_hash, table.c.expires_at > utcnow())
    ).first()
    return SessionRecord(**row._mapping) if row is not None else None


def save_session(conn: Connection, record: SessionRecord) -> None:
    """Insert the session, or replace the data and expiry of the one with its key."""
    updated = conn.execute(
        table.update()
        .where(table.c.id_hash == record.id_hash)
        .values(email=record.email, data=record.data, expires_at=record.expires_at)
    )
    if updated.rowcount == 0:
        conn.execute(table.insert().values(**record.__dict__))


def delete_session(conn: Connection, id_hash: str) -> None:
    """Delete the session keyed ``id_hash`` (sign-out, or a new id after sign-in)."""
    conn.execute(table.delete().where(table.c.id_hash == id_hash))


def purge_expired(conn: Connection, now: datetime | None = None) -> int:
    """Delete every session expired at ``now`` (default: now); return how many went."""
    return conn.execute(table.delete().where(table.c.expires_at <= (now or utcnow()))
                        ).rowcount
