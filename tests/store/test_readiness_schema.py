"""``/readyz`` tells the truth about the schemas: a database that answers ``SELECT 1`` but
was never given its tables (``init-db`` not run) or is at an older revision is not ready,
and the answer names the database and the command to run. The viewer's pages say that
its own store is not set up instead of blaming the results service.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

from app.platform.db import API_DB, get_engine
from app.viewer import store as viewer_store
from tests.support.apps import make_test_app
from tests.support.databases import database_url as _database_url
from tests.support.databases import dispose_engines
from tests.support.links import seed_link
from tests.support.signin import make_email_link

# A missing table is another driver error per dialect (db_schema).
pytestmark = pytest.mark.dialect


@pytest.fixture
def fresh_app(tmp_path):
    """The composed app on an empty database: ``init-db`` has not run."""
    url, drop = _database_url(tmp_path)
    application = make_test_app(url, tmp_path)
    yield application
    dispose_engines(application)
    drop()


def _readyz(app):
    answer = app.test_client().get("/readyz")
    return answer.status_code, answer.get_json()


def test_a_fresh_viewer_store_is_not_ready_and_says_what_to_run(fresh_app):
    # The API's schema is in place, the viewer store's is not.
    API_DB.migrate(get_engine(fresh_app))
    status, body = _readyz(fresh_app)
    assert status == 503
    assert body["checks"] == {"viewer_db": "schema_missing", "api": "ok"}
    assert "viewer store" in body["fix"]["viewer_db"]
    assert "init-db" in body["fix"]["viewer_db"]


def test_a_fresh_api_database_is_not_ready_and_says_what_to_run(fresh_app):
    viewer_store.migrate(viewer_store.get_engine(fresh_app))
    service = fresh_app.extensions["service_app"].test_client().get("/readyz")
    assert service.status_code == 503
    assert service.get_json()["checks"] == {"db": "schema_missing"}
    assert "compute API's database" in service.get_json()["fix"]["db"]
    # The composed app's answer (the viewer's) passes on what the API said.
    status, body = _readyz(fresh_app)
    assert status == 503
    assert body["checks"] == {"viewer_db": "ok", "api": "unavailable"}
    assert "compute API's database" in body["fix"]["api"]
    assert "init-db" in body["fix"]["api"]


def test_init_db_makes_it_ready(fresh_app):
    assert _readyz(fresh_app)[0] == 503
    result = fresh_app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    status, body = _readyz(fresh_app)
    assert (status, body) == (200, {"status": "ok", "checks": {"viewer_db": "ok", "api": "ok"}})


def test_an_older_schema_is_not_ready(fresh_app):
    viewer_store.migrate(viewer_store.get_engine(fresh_app))
    script = ScriptDirectory(str(API_DB.migrations_dir))
    previous = script.get_revision(script.get_current_head()).down_revision
    API_DB.migrate(get_engine(fresh_app), previous)
    service = fresh_app.extensions["service_app"].test_client().get("/readyz")
    assert service.status_code == 503
    assert service.get_json()["checks"] == {"db": "schema_behind"}


def test_a_schema_ahead_of_the_code_stays_ready(fresh_app):
    # A rolling upgrade: the new release's init-db ran; old nodes keep serving.
    fresh_app.test_cli_runner().invoke(args=["init-db"])
    with get_engine(fresh_app).begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = 'from_a_newer_release'"))
    assert _readyz(fresh_app)[0] == 200


def test_pages_say_the_viewer_store_is_not_set_up(app, org, tmp_path):
    shared = seed_link(app, org)
    email_link = make_email_link(app, org)
    # The API's database is migrated; the viewer store points at an empty one.
    app.config["VIEWER_DATABASE_URL"] = f"sqlite:///{tmp_path / 'empty-store.sqlite3'}"
    client = app.test_client()
    pipeline = shared.pipelines["protein_design"]
    for path in (shared.url(f"/pipelines/{pipeline}?sort=-iptm"),
                 shared.url(f"/pipelines/{pipeline}/explore.json?sort=-iptm"),
                 email_link.path("/sign-in")):
        answer = client.get(path)
        assert answer.status_code == 503, path
        page = answer.get_data(as_text=True)
        assert "not set up" in page and "viewer" in page
        assert "results service" not in page
