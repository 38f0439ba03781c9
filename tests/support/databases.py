"""Test databases: an empty migrated one per test (SQLite, or a schema of its own on
PostgreSQL when ``TEST_DATABASE_URL`` is set), and closing an app's pooled connections."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from pathlib import Path

import sqlalchemy as sa

from app.platform.db import get_engine, migrate
from app.viewer import store as viewer_store

ROOT = Path(__file__).resolve().parent.parent.parent
PG_URL = os.environ.get("TEST_DATABASE_URL")


def database_url(tmp_path: Path) -> tuple[str, callable]:
    """Return a URL for an empty database and a function that drops it."""
    if not PG_URL:
        return f"sqlite:///{tmp_path / 'test.sqlite3'}", lambda: None
    schema = _new_schema()
    return _schema_url(schema), lambda: _drop_schemas([schema])


_migrated_sqlite: list[Path] = []


def _migrate(url: str) -> None:
    """Apply both schemas to the database at ``url``."""
    engine = sa.create_engine(url)
    migrate(engine)
    viewer_store.migrate(engine)
    engine.dispose()


def migrated_database(tmp_path: Path) -> tuple[str, callable]:
    """Return the URL of an empty database with both schemas applied, and its dropper.

    Both: the API's tables and the viewer's own store, which by default share a database.
    On SQLite the migrations run once per test process into a template file, which each
    test then gets a copy of: the same file the migrations make (Alembic's version row
    included), at a file copy's cost instead of some 40 migrations per test. On PostgreSQL
    a schema is migrated once and then reused: its dropper empties it (its Alembic version
    rows kept, its sequences restarted) and renames it for the next test of the process
    (``_migrated_postgres_schema``).
    """
    if PG_URL:
        return _migrated_postgres_schema()
    url, drop = database_url(tmp_path)
    if not _migrated_sqlite:
        folder = tempfile.mkdtemp(prefix="migrated-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one per test process
        template = Path(folder) / "template.sqlite3"
        _migrate(f"sqlite:///{template}")
        _migrated_sqlite.append(template)
    shutil.copyfile(_migrated_sqlite[0], sa.engine.make_url(url).database)
    return url, drop


# Migrated PostgreSQL schemas of this test process that no test holds, emptied for reuse.
_idle_schemas: list[str] = []
# The rows a migration writes: the version of each schema, kept when a schema is emptied.
_VERSION_TABLES = ("alembic_version", "viewer_alembic_version")


def _new_schema() -> str:
    """Create an empty PostgreSQL schema of a new name; return the name."""
    schema = f"t_{secrets.token_hex(6)}"
    admin = sa.create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    return schema


def _schema_url(schema: str) -> str:
    """The test database's URL with ``schema`` as its search path."""
    separator = "&" if "?" in PG_URL else "?"
    return f"{PG_URL}{separator}options=-csearch_path%3D{schema}"


def _drop_schemas(schemas: list[str]) -> None:
    if not schemas:
        return
    engine = sa.create_engine(PG_URL)
    with engine.begin() as conn:
        for schema in schemas:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


def _emptied(schema: str) -> str | None:
    """Delete every row of ``schema`` but the version rows, restart its sequences and
    rename it; return its new name, or None if a connection a test left open held a table
    up.

    The new name keeps a thread a test left behind (an index build, a scan) from writing
    into the next test's data: its connections name the old schema, which no longer exists.
    """
    renamed = f"t_{secrets.token_hex(6)}"
    engine = sa.create_engine(PG_URL)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("SET LOCAL lock_timeout = '5s'"))
            tables = [name for (name,) in conn.execute(sa.text(
                "SELECT tablename FROM pg_tables WHERE schemaname = :schema"),
                {"schema": schema}) if name not in _VERSION_TABLES]
            # DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE's new files cost
            # a quarter of a second on 40 tables. Foreign keys are not checked meanwhile
            # (every row goes).
            conn.execute(sa.text("SET LOCAL session_replication_role = replica"))
            for name in tables:
                conn.execute(sa.text(f'DELETE FROM "{schema}"."{name}"'))
            for (sequence,) in conn.execute(sa.text(
                    "SELECT sequencename FROM pg_sequences WHERE schemaname = :schema"),
                    {"schema": schema}):
                conn.execute(sa.text(f"ALTER SEQUENCE \"{schema}\".\"{sequence}\" RESTART"))
            conn.execute(sa.text(f'ALTER SCHEMA "{schema}" RENAME TO "{renamed}"'))
        return renamed
    except sa.exc.OperationalError:
        return None
    finally:
        engine.dispose()


if PG_URL:
    atexit.register(lambda: _drop_schemas(_idle_schemas))


def _migrated_postgres_schema() -> tuple[str, callable]:
    """An empty migrated schema (an idle one of this process, or a new one migrated), and
    the function that gives it back emptied (or drops it, if it cannot be emptied)."""
    if _idle_schemas:
        schema = _idle_schemas.pop()
    else:
        schema = _new_schema()
        _migrate(_schema_url(schema))

    def give_back() -> None:
        renamed = _emptied(schema)
        if renamed is not None:
            _idle_schemas.append(renamed)
        else:
            _drop_schemas([schema])

    return _schema_url(schema), give_back


def dispose_engines(application) -> None:
    """Close every pooled connection of a (composed) app: both halves, both stores."""
    for half in (application, application.extensions.get("service_app")):
        if half is not None:
            get_engine(half).dispose()
            viewer_store.get_engine(half).dispose()
