"""The database engine, the connection of a request, and schema migrations.

Views never open connections: store functions take a ``Connection`` and the service gets
one per request from ``get_conn()``, committed at the end of a successful request and
rolled back otherwise: on an exception that escapes the view, including one that the
500 error handler turns into a response (it calls ``rollback_conn``).
``flask --app app init-db`` applies the Alembic migrations and is safe to repeat.
"""

from __future__ import annotations

from pathlib import Path

import click
import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from flask import Flask, current_app, g
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

MIGRATIONS_DIR = Path(__file__).parent / "store" / "migrations"


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL mode, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def get_engine(app: Flask | None = None) -> Engine:
    """Return the app's engine, created on first use."""
    app = app or current_app
    engine = app.extensions.get("db_engine")
    if engine is None:
        engine = make_engine(app.config["DATABASE_URL"])
        app.extensions["db_engine"] = engine
    return engine


def get_conn() -> Connection:
    """Return this request's connection, opening a transaction on first use."""
    if "db_conn" not in g:
        g.db_conn = get_engine().connect()
        g.db_conn.begin()
    return g.db_conn


def rollback_conn() -> None:
    """Roll back this request's transaction, if any: the request failed midway.

    Called by the handler of unexpected exceptions. Once it has answered, Flask's teardown
    sees no exception, so without this ``close_conn`` would commit a half-done request.
    """
    conn = g.get("db_conn")
    if conn is not None and conn.in_transaction():
        conn.rollback()


def close_conn(exc: BaseException | None = None) -> None:
    """Commit (or on error roll back) and close the request's connection."""
    conn = g.pop("db_conn", None)
    if conn is None:
        return
    try:
        if exc is None and conn.in_transaction():
            conn.commit()
        elif conn.in_transaction():
            conn.rollback()
    finally:
        conn.close()


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the schema of ``engine`` to ``revision`` with Alembic."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


@click.command("init-db")
def init_db_command() -> None:
    """Create or upgrade the database schema (safe to repeat)."""
    migrate(get_engine())
    click.echo("Database schema is up to date.")


def init_app(app: Flask) -> None:
    """Register the connection teardown and the ``init-db`` command."""
    app.teardown_appcontext(close_conn)
    app.cli.add_command(init_db_command)
