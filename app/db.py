"""Databases: the engine, the connection of a request, and schema migrations.

Two databases use this machinery, each a ``Database``: the compute API's (``API_DB``,
``DATABASE_URL``, migrations in ``app/store/migrations``) and the viewer's own store
(``app.viewer.store``, ``VIEWER_DATABASE_URL``). They may be one physical database: each
keeps its Alembic history in its own version table and compares only its own tables.

Views never open connections: store functions take a ``Connection`` and a view gets one
per request from ``Database.conn()``, committed at the end of a successful request and
rolled back otherwise: on an exception that escapes the view, including one that a 500
error handler turns into a response (it calls ``Database.rollback``).

The module-level functions (``get_engine``, ``get_conn``, ``rollback_conn``, ``migrate``,
``init_app``) mean the API's database. ``init-db`` (``app.cli``) calls ``migrate`` of each
database an app object holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pydantic_core
import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from flask import Flask, current_app, g
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine


def json_loads(text: str | bytes) -> object:
    """Decode a JSON column: pydantic-core's parser, ``json.loads`` where it refuses.

    Pages decode four JSON columns per result row; pydantic-core parses them several
    times faster than ``json`` and yields the same values. It refuses a few documents
    that ``json`` accepts (lone surrogate escapes), which ``json`` then reads as before.
    """
    try:
        return pydantic_core.from_json(text)
    except ValueError:
        return json.loads(text)


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets WAL mode, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                                  json_deserializer=json_loads)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                            json_deserializer=json_loads)


def only_tables_of(metadata: sa.MetaData) -> Callable[..., bool]:
    """Return an Alembic ``include_name`` filter that sees only ``metadata``'s tables.

    Two schemas may share one database: without the filter, autogenerate and
    ``compare_metadata`` would report the other schema's tables as ones to drop.
    """
    names = set(metadata.tables)

    def include_name(name, type_, _parent_names) -> bool:
        return name in names if type_ == "table" else True

    return include_name


@dataclass(frozen=True)
class Database:
    """One database of the app: where its URL is configured and where its migrations are.

    ``name`` keys its engine in ``app.extensions`` (``<name>_engine``) and its request
    connection in ``g`` (``<name>_conn``). ``fallback_key`` names the setting used when
    ``url_key`` is unset (the viewer store defaults to the API's database).
    """

    name: str
    url_key: str
    migrations_dir: Path
    version_table: str = "alembic_version"
    fallback_key: str | None = None

    def url(self, app: Flask | None = None) -> str:
        """Return the configured SQLAlchemy URL of this database."""
        config = (app or current_app).config
        url = config.get(self.url_key)
        if not url and self.fallback_key:
            url = config.get(self.fallback_key)
        if not url:
            raise RuntimeError(f"{self.url_key} is not configured")
        return url

    def engine(self, app: Flask | None = None) -> Engine:
        """Return the app's engine of this database, created on first use."""
        app = app or current_app
        key = f"{self.name}_engine"
        engine = app.extensions.get(key)
        if engine is None:
            engine = make_engine(self.url(app))
            app.extensions[key] = engine
        return engine

    def conn(self) -> Connection:
        """Return this request's connection, opening a transaction on first use."""
        key = f"{self.name}_conn"
        conn = g.get(key)
        if conn is None:
            conn = self.engine().connect()
            conn.begin()
            setattr(g, key, conn)
        return conn

    def rollback(self) -> None:
        """Roll back this request's transaction, if any: the request failed midway.

        For the handler of unexpected exceptions: once it has answered, Flask's teardown
        sees no exception, so without this ``close`` would commit a half-done request.
        """
        conn = g.get(f"{self.name}_conn")
        if conn is not None and conn.in_transaction():
            conn.rollback()

    def close(self, exc: BaseException | None = None) -> None:
        """Commit (or on error roll back) and close the request's connection."""
        conn = g.pop(f"{self.name}_conn", None)
        if conn is None:
            return
        try:
            if exc is None and conn.in_transaction():
                conn.commit()
            elif conn.in_transaction():
                conn.rollback()
        finally:
            conn.close()

    def alembic_config(self, conn: Connection) -> AlembicConfig:
        """Return an Alembic configuration that runs this database's migrations on ``conn``."""
        config = AlembicConfig()
        config.set_main_option("script_location", str(self.migrations_dir))
        # Read by the env.py of the migrations folder.
        config.attributes["connection"] = conn
        config.attributes["version_table"] = self.version_table
        return config

    def migrate(self, engine: Engine, revision: str = "head") -> None:
        """Upgrade this database's tables on ``engine`` to ``revision`` with Alembic."""
        with engine.begin() as conn:
            command.upgrade(self.alembic_config(conn), revision)

    def init_app(self, app: Flask) -> None:
        """Commit or roll back, then close, the request's connection at teardown."""
        app.teardown_appcontext(self.close)


API_DB = Database(
    name="db",
    url_key="DATABASE_URL",
    migrations_dir=Path(__file__).parent / "store" / "migrations",
)
# Kept for callers that point Alembic at the API's migrations themselves.
MIGRATIONS_DIR = API_DB.migrations_dir


def get_engine(app: Flask | None = None) -> Engine:
    """Return the app's engine of the API's database, created on first use."""
    return API_DB.engine(app)


def get_conn() -> Connection:
    """Return this request's connection to the API's database (transaction begun)."""
    return API_DB.conn()


def rollback_conn() -> None:
    """Roll back this request's transaction on the API's database, if any."""
    API_DB.rollback()


def close_conn(exc: BaseException | None = None) -> None:
    """Commit (or on error roll back) and close the request's API connection."""
    API_DB.close(exc)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the API's schema on ``engine`` to ``revision`` with Alembic."""
    API_DB.migrate(engine, revision)


def init_app(app: Flask) -> None:
    """Register the teardown of the API's request connection."""
    API_DB.init_app(app)

