"""Fixtures every test folder shares: a fresh migrated database per test (SQLite, or
PostgreSQL when ``TEST_DATABASE_URL`` is set), the app on it, its clients, organizations,
the demo (shared read-only or copied), and a real gunicorn server for end-to-end tests.
The code behind them lives in ``tests/support``.
"""

from __future__ import annotations

import pytest

from tests.support.apps import OrgFixture, make_org, make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.demo import seeded_demo, shared_demo
from tests.support.servers import ServerPolicy, start_gunicorn, stop_gunicorn

# Fixtures that start a server process (gunicorn, moto's S3 server) or a browser: a test that
# uses one, however deep in its fixtures, is slow.
SERVER_FIXTURES = frozenset({"live_server", "site", "browser", "moto_s3", "s3_env"})


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test whose fixtures start a server or a browser; refuse a
    ``dialect`` test whose module does not name the mark (``make test-postgres`` collects
    only the modules that do)."""
    for item in items:
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("dialect") and "mark.dialect" not in item.path.read_text():
            raise pytest.UsageError(f"{item.nodeid} is marked dialect, but its module does "
                                    "not say pytest.mark.dialect: make test-postgres skips it")


# The fast loop's budget: a test whose own run (its call, fixtures aside) takes longer on
# this 2-core machine is marked ``slow`` and left to ``make test``.
FAST_LOOP_SECONDS = 2.0


def pytest_terminal_summary(terminalreporter, config):
    """In a run that leaves ``slow`` tests out (``make test-fast``), name the tests that
    took longer than ``FAST_LOOP_SECONDS``: they belong under the ``slow`` marker."""
    if "not slow" not in (config.getoption("markexpr") or ""):
        return
    over = sorted((report.duration, report.nodeid)
                  for report in terminalreporter.stats.get("passed", [])
                  if report.when == "call" and report.duration > FAST_LOOP_SECONDS)
    if over:
        terminalreporter.write_sep("-", f"over the fast loop's {FAST_LOOP_SECONDS:g} s: "
                                        "mark them slow")
        for seconds, nodeid in reversed(over):
            terminalreporter.write_line(f"{seconds:6.2f} s  {nodeid}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Let only tests marked ``slow`` start a server process (``ServerPolicy``)."""
    ServerPolicy.allowed = item.get_closest_marker("slow") is not None
    ServerPolicy.test = item.nodeid


@pytest.fixture
def db_url(tmp_path):
    """A URL of an empty, migrated database, dropped after the test."""
    url, drop = migrated_database(tmp_path)
    yield url
    drop()


@pytest.fixture
def app(request, tmp_path):
    """The app on a fresh database, with its instance folder in ``tmp_path``.

    Its viewer reads the embedded service through the SDK-fields-only double
    (``make_test_app``), unless the test is marked ``api_extensions``. A test marked
    ``reads_demo`` gets the test process's shared, already seeded demo app instead
    (``tests/support/demo.py``): no database of its own, and a fault if it changes the data.
    """
    if request.node.get_closest_marker("reads_demo"):
        shared = shared_demo()
        yield shared.app
        shared.check_unchanged(request.node.nodeid)
        return
    db_url = request.getfixturevalue("db_url")
    application = make_test_app(
        db_url, tmp_path, api_double=not request.node.get_closest_marker("api_extensions"))
    yield application
    dispose_engines(application)


@pytest.fixture
def demo(request, app) -> dict:
    """The demo's summary (``seed-demo --json``: link ids, pipelines, keys) in ``app``.

    Under ``reads_demo`` the shared demo's (a copy); otherwise the demo is copied into this
    test's own database (``seeded_demo``), which the test may change.
    """
    if request.node.get_closest_marker("reads_demo"):
        return shared_demo().summary_copy()
    return seeded_demo(app)


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


@pytest.fixture
def org(app) -> OrgFixture:
    """An organization with a default workspace and an admin key."""
    return make_org(app)


@pytest.fixture
def other_org(app) -> OrgFixture:
    """A second organization, to prove isolation."""
    return make_org(app, "Other Org")


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
