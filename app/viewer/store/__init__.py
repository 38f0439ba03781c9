"""The viewer's own store: what the viewer itself keeps, apart from the compute API.

Today that is the pending e-mail sign-ins (``signin_requests``), the browser sessions
(``sessions``), the sign-in rate-limit counters (``rate_limits``) and the exploration
index of pipelines' results (``result_index``, ``index_queries``). It is its own
database (``VIEWER_DATABASE_URL``; by default the same database as ``DATABASE_URL``),
with its own schema and Alembic history (version table ``viewer_alembic_version``), so
that a viewer pointed at a remote API (``COMPUTE_API_URL``) never needs the API's tables,
and the two schemas can still share one
database. Views never open connections: they take ``get_conn()``, the request's
connection, committed at teardown (``init_app`` registers it).

This package must not import ``app.store`` or ``app.service``: the viewer knows the API
only over HTTP. ``app.platform.db`` is the shared machinery.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from app.platform.db import Database

# What a store function raises when the database fails, for callers outside the store.
StoreError = SQLAlchemyError

VIEWER_DB = Database(
    name="viewer_db",
    url_key="VIEWER_DATABASE_URL",
    fallback_key="DATABASE_URL",
    migrations_dir=Path(__file__).parent / "migrations",
    version_table="viewer_alembic_version",
    label="viewer store",
    init_command="flask --app app init-db (viewer alone: --app wsgi:viewer_app)",
)


def init_app(app: Flask) -> None:
    """Register the teardown of the viewer's request connection.

    An unset ``VIEWER_DATABASE_URL`` means the app's ``DATABASE_URL``, read when the
    engine is first made, so a test or a factory may still set either one after this.
    """
    VIEWER_DB.init_app(app)


def get_engine(app: Flask | None = None) -> Engine:
    """Return the app's engine of the viewer store, created on first use."""
    return VIEWER_DB.engine(app)


def shared_url(engine: Engine) -> str | None:
    """Return the URL another process opens ``engine``'s database with (password
    included), or None if it cannot: an in-memory SQLite database is the process's own."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and (
            url.database in (None, "", ":memory:") or "memory" in str(url.query)):
        return None
    return url.render_as_string(hide_password=False)


def get_conn() -> Connection:
    """Return this request's connection to the viewer store (transaction begun)."""
    return VIEWER_DB.conn()


def commit_conn() -> None:
    """Commit this request's viewer-store transaction now (a failed commit drops the
    connection rather than hand its transaction back to the pool; see ``Database.commit``)."""
    VIEWER_DB.commit()


def rollback_conn() -> None:
    """Roll back this request's viewer-store transaction: the request failed midway."""
    VIEWER_DB.rollback()


def migrate(engine: Engine, revision: str = "head") -> None:
    """Create or upgrade the viewer store's tables on ``engine`` (safe to repeat)."""
    VIEWER_DB.migrate(engine, revision)
