"""Databases: the engine, the connection of a request, and schema migrations.

Two databases use this machinery, each a ``Database``: the compute API's (``API_DB``,
``DATABASE_URL``, migrations in ``app/store/migrations``) and the viewer's own store
(``app.viewer.store``, ``VIEWER_DATABASE_URL``). They may be one physical database: each
keeps its Alembic history in its own version table and compares only its own tables.

Views never open connections: store functions take a ``Connection`` and a view gets one
per request from ``Database.conn()``, committed once the view has returned, before its
response is sent (``Database.commit``, run by ``base_app.ShareViewerFlask``), so a commit
that fails is answered by the app's error handlers. It is rolled back otherwise: on an
exception that escapes the view, including one that a 500 error handler turns into a
response (it calls ``Database.rollback``). Teardown closes it.

A database that is down, restarting or refusing connections raises the errors that
``is_unavailable`` recognises: the apps answer those 503 with ``Retry-After`` and one log
line (``describe``), and recover by themselves: PostgreSQL engines ping a pooled
connection before handing it out, so connections that died with the server are replaced.

The module-level functions (``get_engine``, ``get_conn``, ``rollback_conn``, ``migrate``,
``init_app``) mean the API's database. ``init-db`` (``app.jobs.cli``) calls ``migrate`` of each
database an app object holds.
"""

from __future__ import annotations

import json
import logging
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

from app.platform import base_app, db_schema
from app.platform.settings import setting

log = logging.getLogger(__name__)

# The base class of every SQLAlchemy error, for error handlers outside the stores.
DatabaseError = sa.exc.SQLAlchemyError
# "The database did not answer": down, restarting, refusing or dropping connections, no
# free pooled connection, or a transaction that must be retried. Not a bug: a 503.
_UNAVAILABLE = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
    sa.exc.PendingRollbackError,
)
# Seconds to wait for a new PostgreSQL connection: libpq's default is forever, and a
# request waiting on a server that does not answer should fail as a 503 instead.
PG_CONNECT_TIMEOUT = 5


# SQLite says OperationalError for missing tables and bad SQL too (bugs, not outages);
# only these of its messages mean "busy or unreachable".
_SQLITE_UNAVAILABLE = ("database is locked", "database table is locked", "unable to open",
                       "disk i/o error", "database or disk is full")


def is_unavailable(error: BaseException) -> bool:
    """Tell whether ``error`` means the database is not answering (rather than a bug)."""
    if isinstance(error, sa.exc.DBAPIError) and error.connection_invalidated:
        return True
    if not isinstance(error, _UNAVAILABLE):
        return False
    cause = getattr(error, "orig", None)
    if type(cause).__module__ == "sqlite3":
        return any(text in str(cause).lower() for text in _SQLITE_UNAVAILABLE)
    return True


def describe(error: BaseException) -> str:
    """Return a one-line description of a database error: its type and first line.

    SQLAlchemy's own message carries the SQL and its parameters (key hashes, ids); the
    driver's first line says what happened (refused, shut down, closed) without them.
    """
    cause = getattr(error, "orig", None) or error
    first_line = (str(cause).strip().splitlines() or [""])[0][:200]
    return f"{type(cause).__name__}: {first_line}" if first_line else type(cause).__name__


def json_loads(text: str | bytes, *, cache_values: bool = True) -> object:
    """Decode a JSON column: pydantic-core's parser, ``json.loads`` where it refuses.

    Pages decode four JSON columns per result row; pydantic-core parses them several
    times faster than ``json`` and yields the same values. It refuses a few documents
    that ``json`` accepts (lone surrogate escapes), which ``json.loads`` then reads.
    ``cache_values=False``: only keys go through pydantic-core's string cache (the same
    values; faster for a document whose string values are nearly all distinct, such as
    an API page of results).
    """
    try:
        return pydantic_core.from_json(text, cache_strings=True if cache_values else "keys")
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
    connect_args = {}
    if "connect_timeout" not in url:
        connect_args["connect_timeout"] = PG_CONNECT_TIMEOUT
    return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                            json_deserializer=json_loads, connect_args=connect_args)


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
    ``url_key`` is unset (the viewer store defaults to the API's database). ``label``
    names it for operators and ``init_command`` is what creates or upgrades its schema
    (both in ``/readyz``'s answer when the schema is missing or behind).
    """

    name: str
    url_key: str
    migrations_dir: Path
    version_table: str = "alembic_version"
    fallback_key: str | None = None
    label: str = "compute API's database"
    init_command: str = "flask --app app init-db"

    def url(self, app: Flask | None = None) -> str:
        """Return the configured SQLAlchemy URL of this database."""
        app = app or current_app
        url = setting(app, self.url_key)
        if not url and self.fallback_key:
            url = setting(app, self.fallback_key)
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
            try:
                conn.rollback()
            except DatabaseError as error:
                # The connection died with the request (the reason it failed): nothing
                # to roll back on the server; close() hands it back to be discarded.
                log.debug("rollback failed: %s", describe(error))

    def commit(self) -> None:
        """Commit this request's transaction now, if it has one; raise if that fails.

        Run after the view and before the response is sent (``init_app``), so a failed
        commit is answered by the app's error handlers, not after a 200 went out.
        """
        conn = g.get(f"{self.name}_conn")
        if conn is not None and conn.in_transaction():
            try:
                conn.commit()
            except DatabaseError:
                # SQLAlchemy now counts the transaction as ended, so the pool would not
                # roll it back: whatever the driver still holds could be committed by the
                # next request. Discard the connection instead (closing it rolls back).
                conn.invalidate()
                raise

    def close(self, exc: BaseException | None = None) -> None:
        """Close the request's connection, committing what is left (or rolling back).

        Usually ``commit`` has run already; what remains is written after the view (a
        streamed response) or by a request that failed. The response is sent by now, so
        a failure here can only be logged: one line, never an exception out of teardown.
        """
        conn = g.pop(f"{self.name}_conn", None)
        if conn is None:
            return
        try:
            if exc is None and conn.in_transaction():
                conn.commit()
            elif conn.in_transaction():
                conn.rollback()
        except DatabaseError as error:
            log.error("%s: closing the request's transaction failed: %s",
                      self.name, describe(error))
            conn.invalidate()  # see commit(): never pool a transaction in doubt
        finally:
            try:
                conn.close()
            except DatabaseError as error:
                log.debug("%s: closing the connection failed: %s", self.name, describe(error))

    def check_ready(self, app: Flask | None = None) -> None:
        """Raise unless this database answers and its schema is at the code's head
        (``db_schema``: one query of the version table)."""
        db_schema.check(self.engine(app), self.migrations_dir, self.version_table,
                         label=self.label, command=self.init_command)

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
        """Commit the request's connection before the response, close it at teardown,
        and make ``/readyz`` check this database and its schema."""
        base_app.add_before_response(app, self.commit)
        app.teardown_appcontext(self.close)
        base_app.add_readiness_check(app, self.name, lambda: self.check_ready(app))


API_DB = Database(
    name="db",
    url_key="DATABASE_URL",
    migrations_dir=Path(__file__).resolve().parents[1] / "store" / "migrations",
    init_command="flask --app app init-db (API alone: --app wsgi:service_app)",
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
    """Register the commit, teardown and readiness check of the API's database."""
    API_DB.init_app(app)

