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
    schema = f"t_{secrets.token_hex(6)}"
    admin = sa.create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    separator = "&" if "?" in PG_URL else "?"
    url = f"{PG_URL}{separator}options=-csearch_path%3D{schema}"

    def drop() -> None:
        engine = sa.create_engine(PG_URL)
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()

    return url, drop


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
    included), at a file copy's cost instead of some 40 migrations per test.
    """
    url, drop = database_url(tmp_path)
    if PG_URL:
        _migrate(url)
        return url, drop
    if not _migrated_sqlite:
        folder = tempfile.mkdtemp(prefix="migrated-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one per test process
        template = Path(folder) / "template.sqlite3"
        _migrate(f"sqlite:///{template}")
        _migrated_sqlite.append(template)
    shutil.copyfile(_migrated_sqlite[0], sa.engine.make_url(url).database)
    return url, drop


def dispose_engines(application) -> None:
    """Close every pooled connection of a (composed) app: both halves, both stores."""
    for half in (application, application.extensions.get("service_app")):
        if half is not None:
            get_engine(half).dispose()
            viewer_store.get_engine(half).dispose()
