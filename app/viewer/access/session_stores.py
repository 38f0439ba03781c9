"""Where server-side sessions live: the viewer store (default) or Redis.

``FLASK_SESSION_STORE_URI`` unset means the viewer store (``viewer_sessions``, the
viewer's own database: shared by every worker and server using it). ``redis://host:port``
means Redis: one key ``<FLASK_RATELIMIT_KEY_PREFIX>:session:<hash>`` a session, with the
session's own expiry as the key's, so Redis drops it by itself.

Both take the same calls: ``load`` (a live record or None), then, when the response is
ready, any of ``delete``/``save``/``purge`` followed by ``commit``. The viewer store's
writes go on the request's connection and ``commit`` commits it, so a sign-in that
consumes a code and the session it creates are one transaction; reads use a connection
of their own, so a session read holds no transaction open through the request.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime

import redis
from flask import Flask, current_app

from app.platform.settings import setting
from app.platform.timeutil import utcnow
from app.viewer import store
from app.viewer.store import sessions as rows
from app.viewer.store.sessions import SessionRecord as Stored

__all__ = ["RedisSessions", "StoreSessions", "Stored", "current", "init_app"]

# Seconds to wait on Redis: a session read sits in front of every page.
REDIS_TIMEOUT = 2.0


class StoreSessions:
    """Sessions in the viewer store (``app.viewer.store.sessions``)."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def load(self, id_hash: str) -> Stored | None:
        """Return the live session keyed ``id_hash``, or None."""
        with store.get_engine(self.app).connect() as conn:
            return rows.get_session(conn, id_hash)

    def save(self, record: Stored) -> None:
        """Insert or replace ``record`` (written at ``commit``)."""
        rows.save_session(store.get_conn(), record)

    def delete(self, id_hash: str) -> None:
        """Delete the session keyed ``id_hash`` (written at ``commit``)."""
        rows.delete_session(store.get_conn(), id_hash)

    def purge(self) -> None:
        """Delete expired sessions (written at ``commit``)."""
        rows.purge_expired(store.get_conn())

    def commit(self) -> None:
        """Commit the request's viewer-store transaction, session writes included."""
        store.commit_conn()


class RedisSessions:
    """Sessions in Redis, one key each, expiring with the session."""

    def __init__(self, uri: str) -> None:
        self.client = redis.Redis.from_url(uri, socket_timeout=REDIS_TIMEOUT,
                                           socket_connect_timeout=REDIS_TIMEOUT)

    @staticmethod
    def key(id_hash: str) -> str:
        """Return the Redis key of a session."""
        prefix = setting(current_app, "RATELIMIT_KEY_PREFIX")
        return f"{prefix}:session:{id_hash}"

    def load(self, id_hash: str) -> Stored | None:
        """Return the live session keyed ``id_hash``, or None."""
        raw = self.client.get(self.key(id_hash))
        if raw is None:
            return None
        fields = json.loads(raw)
        for name in ("created_at", "expires_at"):
            fields[name] = datetime.fromisoformat(fields[name])
        record = Stored(**fields)
        return record if record.expires_at > utcnow() else None

    def save(self, record: Stored) -> None:
        """Store ``record`` under its key, expiring when the session does."""
        fields = asdict(record)
        for name in ("created_at", "expires_at"):
            fields[name] = fields[name].isoformat()
        ttl_ms = int((record.expires_at - utcnow()).total_seconds() * 1000)
        self.client.set(self.key(record.id_hash), json.dumps(fields), px=max(1, ttl_ms))

    def delete(self, id_hash: str) -> None:
        """Delete the session keyed ``id_hash``."""
        self.client.delete(self.key(id_hash))

    def purge(self) -> None:
        """Nothing to do: Redis expires each key with its session."""

    def commit(self) -> None:
        """Nothing to do: each Redis call is applied at once."""


def init_app(app: Flask) -> None:
    """Choose the session store from ``SESSION_STORE_URI``."""
    uri = setting(app, "SESSION_STORE_URI")
    if uri in (None, "", "database"):
        app.extensions["signin_sessions"] = StoreSessions(app)
    elif uri.startswith(("redis://", "rediss://", "unix://")):
        app.extensions["signin_sessions"] = RedisSessions(uri)
    else:
        raise RuntimeError("FLASK_SESSION_STORE_URI must be unset, 'database' or redis://...")


def current(app: Flask | None = None) -> StoreSessions | RedisSessions:
    """Return the app's session store."""
    return (app or current_app).extensions["signin_sessions"]
