"""Pending e-mail sign-ins (viewer store): one row per message sent, consumed at most once.

Rows hold only hashes (computed by ``app.viewer.access.codes``): of the link token, of the
typed code, of the share link id and of the requesting browser's nonce. Single use and the
attempt limits are enforced by conditional UPDATEs, so they hold across processes and
servers sharing the database (a row lock in PostgreSQL, the write lock in SQLite). Wrong
codes are counted per way in (``CODE``: typed in the browser that asked; ``LINK``: typed
with the message's link in another browser), each against the same cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.platform.timeutil import utcnow
from app.viewer.store.schema import signin_requests as table

# Rows are kept a while after expiry so that a late click can still be told "expired"
# rather than "not valid"; after that they are deleted.
KEEP_EXPIRED = timedelta(days=1)

# The two attempt counters of a row (see the module docstring).
CODE = "attempts"
LINK = "link_attempts"


@dataclass(frozen=True)
class SigninRequest:
    """A sign-in message that was sent: who it is for and what it is good for."""

    id: str
    share_link_hash: str
    email: str
    token_hash: str
    code_hash: str
    browser_hash: str
    next_path: str
    attempts: int
    link_attempts: int
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None


def _record(row) -> SigninRequest | None:
    """Return the row as a ``SigninRequest``, or None for no row."""
    return SigninRequest(**row._mapping) if row is not None else None


def create_request(
    conn: Connection,
    *,
    request_id: str,
    share_link_hash: str,
    email: str,
    token_hash: str,
    code_hash: str,
    browser_hash: str,
    next_path: str,
    ttl: timedelta,
) -> SigninRequest:
    """Insert a pending sign-in and return it; old expired rows are purged on the way."""
    now = utcnow()
    purge_expired(conn, now)
    record = SigninRequest(
        id=request_id,
        share_link_hash=share_link_hash,
        email=email,
        token_hash=token_hash,
        code_hash=code_hash,
        browser_hash=browser_hash,
        next_path=next_path,
        attempts=0,
        link_attempts=0,
        created_at=now,
        expires_at=now + ttl,
        used_at=None,
    )
    conn.execute(table.insert().values(**record.__dict__))
    return record


def purge_expired(conn: Connection, now: datetime) -> int:
    """Delete the sign-ins expired more than ``KEEP_EXPIRED`` before ``now``; return how
    many went (also run by ``purge-expired``, so a quiet viewer keeps none either)."""
    return conn.execute(table.delete().where(table.c.expires_at < now - KEEP_EXPIRED)
                        ).rowcount


def get_request(conn: Connection, request_id: str) -> SigninRequest | None:
    """Return the pending sign-in with this id, or None."""
    row = conn.execute(sa.select(table).where(table.c.id == request_id)).first()
    return _record(row)


def find_by_token_hash(conn: Connection, token_hash: str) -> SigninRequest | None:
    """Return the pending sign-in whose link token hashes to ``token_hash``, or None."""
    row = conn.execute(sa.select(table).where(table.c.token_hash == token_hash)).first()
    return _record(row)


def count_attempt(
    conn: Connection, request_id: str, max_attempts: int, counter: str = CODE
) -> bool:
    """Count one code attempt on ``counter``; False when used, expired or out of attempts.

    ``counter`` is ``CODE`` or ``LINK``: each way in has its own cap. The attempt is
    counted before the code is compared, so parallel guesses can never exceed
    ``max_attempts`` between them.
    """
    column = table.c[counter]
    result = conn.execute(
        table.update()
        .where(
            table.c.id == request_id,
            table.c.used_at.is_(None),
            table.c.expires_at > utcnow(),
            column < max_attempts,
        )
        .values({counter: column + 1})
    )
    return result.rowcount == 1


def consume(conn: Connection, request_id: str) -> bool:
    """Mark the sign-in used; True only for the one caller that did so while it was live."""
    now = utcnow()
    result = conn.execute(
        table.update()
        .where(table.c.id == request_id, table.c.used_at.is_(None), table.c.expires_at > now)
        .values(used_at=now)
    )
    return result.rowcount == 1
