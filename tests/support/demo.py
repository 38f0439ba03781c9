"""The demo in a test app's database: shared read-only, or seeded once per test process and
copied per test.

``seed_demo`` takes seconds (it writes some 960 artifact files and thousands of rows);
tests of the viewer need it in a fresh database each. On SQLite, ``seeded_demo(app)`` seeds
a template database and artifact folder the first time, then copies them into the app's
own database (SQLite's backup API, a page-exact copy) and artifact folder: the same rows,
ids and files as ``seed_demo`` made, in a database that only this test changes. On
PostgreSQL (``TEST_DATABASE_URL``) it runs ``seed_demo`` itself. ``first_seed_copied(app)``
makes the commands and the upkeep that call ``seed_demo`` get such a copy the first time.

Most tests only read the demo: ``shared_demo(config)`` is one app over one seeded demo per
test process (tests marked ``reads_demo`` get it as their ``app``), with its exploration
index built once. After each such test its data are compared with a fingerprint taken when
it was made, and the app's config and extensions with theirs; a test that changed them
fails, naming itself, and the next test gets a fresh copy, so one faulty test never leaks
into another.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import hashlib
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.demo import seed as demo_seed
from app.demo.seed import seed_demo
from app.platform.db import get_engine
from app.viewer.store import schema as viewer_schema
from tests.support.apps import make_test_app
from tests.support.databases import PG_URL, dispose_engines, migrated_database

PUBLIC_URL = "http://viewer.test"
_template_made: list[tuple[Path, Path, dict, dict]] = []
_MISSING = object()


def _sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///`` URL, else None."""
    parsed = sa.engine.make_url(url)
    return Path(parsed.database) if parsed.get_backend_name() == "sqlite" else None


def _row_counts(path: Path) -> dict[str, int]:
    """Rows per table of the SQLite database at ``path``."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def _template() -> tuple[Path, Path, dict, dict]:
    """The template database, artifact folder, summary (links for ``PUBLIC_URL``) and the
    rows of an unseeded database."""
    if not _template_made:
        folder = Path(tempfile.mkdtemp(prefix="demo-copy-"))
        # ~70 MB of artifacts per test process: gone when the process ends.
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        url, _drop = migrated_database(folder)
        database = _sqlite_path(url)
        empty = _row_counts(database)
        engine = sa.create_engine(url)
        try:
            summary = seed_demo(engine, artifact_dir=str(folder / "artifacts"),
                                public_url=PUBLIC_URL)
        finally:
            engine.dispose()
        _template_made.append((database, folder / "artifacts", summary, empty))
    return _template_made[0]


def _for_url(summary: dict, public_url: str | None) -> dict:
    """A copy of ``summary`` with its links' URLs for ``public_url`` (what ``seed_demo``
    returns for it: the URL is in the summary only, never in the rows)."""
    copied = copy.deepcopy(summary)
    for link in copied["share_links"].values():
        link["url"] = demo_seed.link_url(public_url, link["id"])
    return copied


def seeded_demo(app, public_url: str | None = PUBLIC_URL) -> dict:
    """What ``seed_demo(get_engine(app), artifact_dir=..., public_url=...)`` does, fast.

    Returns the summary (a copy the test may change). Falls back to ``seed_demo`` when the
    app's database is not SQLite, the viewer's store is a database of its own, or the
    database already holds rows (another fixture's organization: a copy would drop it).
    """
    url = app.config["DATABASE_URL"]
    target = _sqlite_path(url)
    if PG_URL or target is None or app.config.get("VIEWER_DATABASE_URL") not in (None, url):
        return seed_demo(get_engine(app), artifact_dir=app.config["ARTIFACT_DIR"],
                         public_url=public_url)
    database, artifacts, summary, empty = _template()
    # No pooled connection may keep reading the replaced pages.
    dispose_engines(app)
    if _row_counts(target) != empty:
        return seed_demo(get_engine(app), artifact_dir=app.config["ARTIFACT_DIR"],
                         public_url=public_url)
    with (contextlib.closing(sqlite3.connect(database)) as source,
          contextlib.closing(sqlite3.connect(target)) as copy_to):
        source.backup(copy_to)
    shutil.copytree(artifacts, app.config["ARTIFACT_DIR"], dirs_exist_ok=True)
    return _for_url(summary, public_url)


@contextlib.contextmanager
def first_seed_copied(app):
    """Within the block, ``app.demo.seed.seed_demo``'s first call (the demo's own sizes) is
    ``seeded_demo(app, public_url)``; every later call is ``seed_demo`` itself.

    For tests of the commands and the upkeep that seed a demo into ``app``'s database
    (``seed-demo``, ``refresh-demo``): the first demo is the one they would have made, and
    a re-seed the upkeep decides on is a real one.
    """
    real, calls = demo_seed.seed_demo, []

    def seed_demo_first_copied(engine, **kwargs):
        calls.append(kwargs)
        if len(calls) == 1 and kwargs.get("results") is None:
            return seeded_demo(app, kwargs.get("public_url"))
        return real(engine, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo_seed, "seed_demo", seed_demo_first_copied)
        yield


# Tables a read builds or refreshes (the exploration index, epitope scans: caches that answer
# what the API's tables hold), left out of the shared demo's fingerprint.
CACHE_TABLES = frozenset(table.name for table in (
    viewer_schema.result_indexes, viewer_schema.indexed_results,
    viewer_schema.indexed_records, viewer_schema.index_frames,
    viewer_schema.epitope_contacts, viewer_schema.epitope_scans))


# Visitors' sessions: a test that signs its client in (``session_transaction``) writes one,
# keyed by a random id no other test's client holds; a visitor, not the demo's data. The
# sign-in rate limits' rows stay in: a count one test left would change another's limits.
VISITOR_TABLES = frozenset({viewer_schema.sessions.name})


def fingerprint(engine: sa.Engine) -> str:
    """A digest of every row of every table of ``engine``'s database but the caches and the
    visitors' sessions (``CACHE_TABLES``, ``VISITOR_TABLES``)."""
    digest = hashlib.sha256()
    with engine.connect() as conn:
        inspector = sa.inspect(conn)
        for name in sorted(inspector.get_table_names()):
            if name in CACHE_TABLES or name in VISITOR_TABLES:
                continue
            # Every column, in the table's order, sorts the rows: the same digest whatever
            # order the database returns them in. Plain SQL: reflecting ~30 tables per
            # call cost more than reading their rows.
            columns = ", ".join(f'"{c["name"]}"' for c in inspector.get_columns(name))
            digest.update(name.encode())
            for row in conn.exec_driver_sql(f'SELECT {columns} FROM "{name}" ORDER BY {columns}'):
                digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


class SharedDemo:
    """One app over a seeded demo that read-only tests of a test process share."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="shared-demo-"))
        atexit.register(shutil.rmtree, self.folder, ignore_errors=True)
        url, self._drop = migrated_database(self.folder)
        self.app = make_test_app(url, self.folder)
        self.summary = seeded_demo(self.app)
        self.fingerprint = fingerprint(get_engine(self.app))
        self.config = copy.deepcopy(dict(self.app.config))
        self.extensions = dict(self.app.extensions)

    def summary_copy(self) -> dict:
        """The seed summary, a copy a test may change."""
        return copy.deepcopy(self.summary)

    def changed_state(self) -> list[str]:
        """The app's config keys and extensions that differ from when the demo was made.

        Not data, but as shared: ``app.config["PUBLIC_URL"] = None`` or a viewer pointed at
        another API (``app.extensions["compute_api"]``) would hold for every later test of
        the process. Extensions added since (caches the app makes on first use) are fine.
        """
        config = dict(self.app.config)
        changed = [f"app.config[{key!r}]" for key in sorted(config.keys() | self.config.keys())
                   if config.get(key, _MISSING) != self.config.get(key, _MISSING)]
        return changed + [f"app.extensions[{key!r}]" for key, value in self.extensions.items()
                          if self.app.extensions.get(key) is not value]

    def check_unchanged(self, test: str) -> None:
        """Fail ``test`` if it changed the demo's data or the app's config or extensions;
        the next test then gets a new demo."""
        changed = self.changed_state()
        if not changed and fingerprint(get_engine(self.app)) == self.fingerprint:
            return
        self.close()
        what = ", ".join(changed) or "its data"
        raise AssertionError(
            f"{test} changed the shared read-only demo (marked reads_demo): {what}. A test "
            "that changes data or the app takes the `demo` fixture without the marker (its "
            "own copy)")

    def close(self) -> None:
        """Let go of the app, its database and files (``shared_demo`` makes a new one)."""
        global _shared
        if _shared is self:
            _shared = None
        dispose_engines(self.app)
        self._drop()
        shutil.rmtree(self.folder, ignore_errors=True)


_shared: SharedDemo | None = None


def shared_demo() -> SharedDemo:
    """The test process's shared demo, made on first use."""
    global _shared
    if _shared is None:
        _shared = SharedDemo()
        atexit.register(_shared.close)
    return _shared
