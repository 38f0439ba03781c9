"""Shared fixtures: a fresh database per test (SQLite, or PostgreSQL when
``TEST_DATABASE_URL`` is set), the app, its clients, an organization, and a real
gunicorn server for end-to-end tests.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from app import create_app
from app.db import get_engine, migrate
from app.store.organizations import create_organization
from app.viewer import store as viewer_store

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("TEST_DATABASE_URL")


def _database_url(tmp_path: Path) -> tuple[str, callable]:
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
    url, drop = _database_url(tmp_path)
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


def make_test_app(database_url: str, tmp_path: Path):
    """Create the app on ``database_url`` with its instance and artifacts in ``tmp_path``."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "SECRET_KEY": "test-secret",
            "ARTIFACT_DIR": str(tmp_path / "artifacts"),
            "PUBLIC_URL": "http://viewer.test",
            # Flask's test client closes a streamed answer only when a test does: the work
            # gate's slot of an export is held until then (gunicorn always closes).
            # tests/viewer/web/test_work_gate.py puts a gate of one slot in place.
            "EXPENSIVE_WORK_SLOTS": 10_000,
            "EXPENSIVE_WORK_PER_CLIENT": 10_000,
            # Off: a protein results page would read every design's structure in a
            # background thread that outlives its test. tests/viewer/epitope turns it on.
            "EPITOPE_SCAN": False,
        },
        instance_path=str(tmp_path / "instance"),
    )


def pytest_collection_modifyitems(config, items):
    """Under ``SHARE_VIEWER_API_DOUBLE=sdk``, run only the tests that build the ``app``.

    The double is put in place by the ``app`` fixture alone: a test without it (a pure
    function, its own fake API) runs exactly as in the SQLite run, so running it again in
    ``make test-sdk-double`` proves nothing more. Those are deselected (pytest counts them).
    """
    if os.environ.get("SHARE_VIEWER_API_DOUBLE") != "sdk":
        return
    keep = [item for item in items if "app" in getattr(item, "fixturenames", ())]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


@pytest.fixture
def db_url(tmp_path):
    """A URL of an empty, migrated database, dropped after the test."""
    url, drop = migrated_database(tmp_path)
    yield url
    drop()


@pytest.fixture
def app(db_url, tmp_path):
    """The app on a fresh database, with its instance folder in ``tmp_path``.

    With ``SHARE_VIEWER_API_DOUBLE=sdk`` its viewer reads the embedded service through the
    SDK-fields-only double (``tests/sdk_double.py``, ``make test-sdk-double``).
    """
    application = make_test_app(db_url, tmp_path)
    if os.environ.get("SHARE_VIEWER_API_DOUBLE") == "sdk":
        from tests.sdk_double import use_api_double

        use_api_double(application)
    yield application
    dispose_engines(application)


def dispose_engines(application) -> None:
    """Close every pooled connection of a (composed) app: both halves, both stores."""
    for half in (application, application.extensions.get("service_app")):
        if half is not None:
            get_engine(half).dispose()
            viewer_store.get_engine(half).dispose()


@pytest.fixture
def service_app(app):
    """The service half of the composed app (its own engine, routes and error handlers)."""
    return app.extensions["service_app"]


@pytest.fixture
def client(app):
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def runner(app):
    """A CLI runner of the app."""
    return app.test_cli_runner()


@dataclass(frozen=True)
class OrgFixture:
    """An organization made for a test: its ids and full admin key."""

    organization_id: str
    workspace_id: str
    admin_key: str

    @property
    def headers(self) -> dict[str, str]:
        """Headers that authenticate as the admin key."""
        return {"x-api-key": self.admin_key}


def make_org(app, name: str = "Test Org") -> OrgFixture:
    """Create an organization in ``app``'s database."""
    with get_engine(app).begin() as conn:
        org, workspace, _key, secret = create_organization(conn, name)
    return OrgFixture(org.id, workspace.id, secret)


@pytest.fixture
def org(app) -> OrgFixture:
    """An organization with a default workspace and an admin key."""
    return make_org(app)


@pytest.fixture
def other_org(app) -> OrgFixture:
    """A second organization, to prove isolation."""
    return make_org(app, "Other Org")


def free_port() -> int:
    """Return a TCP port free on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    """A gunicorn server running the app; ``url`` is its base URL."""

    url: str
    process: subprocess.Popen
    env: dict
    log_path: Path

    def log_text(self) -> str:
        """Return what the server has written to its log so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def start_gunicorn(env_overrides: dict, tmp_path: Path, workers: int = 2,
                   target: str = "wsgi:app") -> LiveServer:
    """Start gunicorn serving ``target`` on a free port and wait until it answers."""
    port = free_port()
    log_path = tmp_path / f"gunicorn-{port}.log"
    env = {**os.environ, **env_overrides}
    env.setdefault("FLASK_PUBLIC_URL", f"http://127.0.0.1:{port}")
    command = [
        sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--access-logfile", str(log_path), "--error-logfile", str(log_path),
        target,
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    # Generous: on a loaded 2-core CI machine, importing the app in each worker can take
    # many seconds, and a start-up failure here fails every end-to-end test of the module.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
            raise RuntimeError(f"gunicorn exited early:\n{log_text}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return LiveServer(url, process, env, log_path)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
    raise RuntimeError(f"gunicorn did not start within 90 s:\n{log_text}")


def stop_gunicorn(server: LiveServer) -> None:
    """Stop the server and wait for it."""
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture
def live_server(db_url, tmp_path):
    """A gunicorn server on a fresh database; the test seeds what it needs."""
    instance = tmp_path / "instance"
    instance.mkdir(exist_ok=True)
    server = start_gunicorn(
        {
            "FLASK_DATABASE_URL": db_url,
            "FLASK_SECRET_KEY": "live-secret",
            "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
            "FLASK_INSTANCE_PATH": str(instance),
        },
        tmp_path,
    )
    yield server
    stop_gunicorn(server)
