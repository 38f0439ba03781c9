"""API keys: stored as SHA-256 hashes, looked up by hash in one indexed read."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.paging import keyset_page
from app.store.records import ApiKey, from_row

# A key is this prefix plus 256 bits of URL-safe base64; key_prefix is its first 12 chars.
KEY_PREFIXES = {"live": "bz_live_", "test": "bz_test_"}


def hash_key(full_key: str) -> str:
    """Return the hex SHA-256 under which a key is stored.

    A fast hash is right here: the key carries 256 random bits, so there is nothing to
    brute-force, and authentication must stay one indexed lookup.
    """
    return hashlib.sha256(full_key.encode()).hexdigest()


def create_api_key(
    conn: Connection,
    *,
    organization_id: str,
    workspace_id: str | None,
    key_type: str,
    name: str,
    allowed_ips: list[str] | None = None,
    expires_at: datetime | None = None,
    livemode: bool = True,
) -> tuple[ApiKey, str]:
    """Create a key and return its record and the full key (shown once, never stored)."""
    full_key = KEY_PREFIXES["live" if livemode else "test"] + secrets.token_urlsafe(32)
    record = ApiKey(
        id=new_id("key"),
        organization_id=organization_id,
        workspace_id=workspace_id,
        key_type=key_type,
        name=name,
        key_prefix=full_key[:12],
        allowed_ips=list(allowed_ips or []),
        livemode=livemode,
        is_active=True,
        created_at=utcnow(),
        expires_at=expires_at,
        last_used_at=None,
    )
    # The record also carries what authentication joins in (workspace times): not columns.
    values = {k: v for k, v in record.__dict__.items() if k in schema.api_keys.c}
    conn.execute(schema.api_keys.insert().values(key_hash=hash_key(full_key), **values))
    return record, full_key


def find_key_for_auth(conn: Connection, full_key: str) -> ApiKey | None:
    """Return the key with this value and its workspace's archive and test-data times, or None.

    The test-data time rides on the join authentication needs anyway, so deciding whether
    a workspace test key's first use must seed synthetic data costs no query.
    """
    k, w = schema.api_keys, schema.workspaces
    row = conn.execute(
        sa.select(k, w.c.archived_at.label("workspace_archived_at"),
                  w.c.test_data_seeded_at.label("workspace_test_data_seeded_at"))
        .select_from(k.outerjoin(w, k.c.workspace_id == w.c.id))
        .where(k.c.key_hash == hash_key(full_key))
    ).first()
    return from_row(ApiKey, row) if row else None


LAST_USED_RESOLUTION = timedelta(minutes=1)


def touch_last_used(conn: Connection, key: ApiKey, when: datetime) -> None:
    """Record that ``key`` was used, writing at most once per ``LAST_USED_RESOLUTION``.

    The decision is made from the row authentication already read, so a key in steady
    use costs no write (and, on SQLite, takes no write lock) on most requests.
    """
    if key.last_used_at is not None and when - key.last_used_at < LAST_USED_RESOLUTION:
        return
    conn.execute(
        schema.api_keys.update().where(schema.api_keys.c.id == key.id).values(last_used_at=when)
    )


# Every column of a key except its hash, which never leaves this module.
_PUBLIC_COLUMNS = [c for c in schema.api_keys.c if c.name != "key_hash"]


def get_api_key(conn: Connection, organization_id: str, key_id: str) -> ApiKey | None:
    """Return the organization's key with this id, or None (also for other orgs')."""
    k = schema.api_keys
    row = conn.execute(
        sa.select(*_PUBLIC_COLUMNS).where(k.c.id == key_id, k.c.organization_id == organization_id)
    ).first()
    return from_row(ApiKey, row) if row else None


def list_api_keys(
    conn: Connection,
    organization_id: str,
    *,
    workspace_id: str | None = None,
    limit: int,
    after_id: str | None = None,
    before_id: str | None = None,
) -> tuple[list[ApiKey], bool]:
    """Return one id-ordered page of the organization's keys (optionally of one workspace)."""
    k = schema.api_keys
    query = sa.select(*_PUBLIC_COLUMNS).where(k.c.organization_id == organization_id)
    if workspace_id is not None:
        query = query.where(k.c.workspace_id == workspace_id)
    page = keyset_page(conn, query, k.c.id, limit=limit, after_id=after_id, before_id=before_id)
    return [from_row(ApiKey, row) for row in page.rows], page.has_more


def revoke_api_key(conn: Connection, key: ApiKey) -> ApiKey:
    """Deactivate ``key`` (a no-op when it already is) and return its fresh record."""
    k = schema.api_keys
    conn.execute(
        k.update().where(k.c.id == key.id, k.c.is_active.is_(True)).values(is_active=False)
    )
    return get_api_key(conn, key.organization_id, key.id)


def deactivate_workspace_keys(conn: Connection, workspace_id: str) -> int:
    """Deactivate every key scoped to ``workspace_id``; return how many were active."""
    k = schema.api_keys
    result = conn.execute(
        k.update()
        .where(k.c.workspace_id == workspace_id, k.c.is_active.is_(True))
        .values(is_active=False)
    )
    return result.rowcount


def count_active_admin_keys(conn: Connection, organization_id: str) -> int:
    """Return how many active admin keys the organization has, locking the organization.

    The lock is held until the transaction ends, so two concurrent revocations cannot both
    see two admin keys and together revoke the last one. It is taken with an UPDATE that
    changes nothing: on PostgreSQL that locks the organization's row; on SQLite it takes
    the database write lock *before* the count (pysqlite only begins a transaction at the
    first write, so ``SELECT ... FOR UPDATE``, which SQLite ignores anyway, would leave
    the count outside any lock).
    """
    o = schema.organizations
    conn.execute(o.update().where(o.c.id == organization_id).values(name=o.c.name))
    k = schema.api_keys
    return conn.execute(
        sa.select(sa.func.count()).select_from(k).where(
            k.c.organization_id == organization_id, k.c.key_type == "admin",
            k.c.is_active.is_(True),
        )
    ).scalar_one()
