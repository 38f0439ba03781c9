"""A database that does not answer, in-process: the API answers its JSON envelope with 503
and ``Retry-After``, the viewer a 503 page, each failure is one log line without a
traceback, ``/readyz`` tells, and a commit that fails is answered like any other failure.

"Down" is a PostgreSQL URL on a loopback port where nothing listens (refused at once); a
failing commit is the driver's commit raising, as it does when the server goes away
between the view's last statement and the commit.
"""

from __future__ import annotations

import logging
import sqlite3

import pytest

from app import create_service_app
from app.platform.db import get_engine
from app.viewer import store as viewer_store
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines
from tests.support.factories import assert_envelope
from tests.support.links import point_viewer_at
from tests.support.servers import free_port

LINK = "sl_" + "A" * 32


@pytest.fixture
def down_url() -> str:
    """A PostgreSQL URL nobody answers on."""
    return f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nothing"


@pytest.fixture
def down_app(down_url, tmp_path):
    """The composed app over a database that refuses connections."""
    application = make_test_app(down_url, tmp_path)
    yield application
    dispose_engines(application)


def _one_line_per_failure(caplog, logger: str) -> list[logging.LogRecord]:
    records = [r for r in caplog.records if r.name == logger and r.levelno >= logging.WARNING]
    assert all(r.exc_info is None and not r.exc_text for r in records)
    assert "Traceback" not in caplog.text
    return records


def test_the_api_answers_503_with_the_envelope_and_one_line(down_url, tmp_path, caplog):
    service = create_service_app({"TESTING": True, "DATABASE_URL": down_url,
                                  "SECRET_KEY": "x"}, instance_path=str(tmp_path / "i"))
    client = service.test_client()
    with caplog.at_level(logging.WARNING):
        read = client.get(f"/compute/v1/share/{LINK}")
        listed = client.get("/compute/v1/admin/workspaces", headers={"x-api-key": "bz_live_x"})
    for response in (read, listed):
        body = assert_envelope(response, 503)
        assert body["error"] == "Service Unavailable"
        assert response.headers["Retry-After"].isdigit()
        assert "psycopg" not in response.get_data(as_text=True)
    records = _one_line_per_failure(caplog, "app.service.errors")
    assert len(records) == 2
    assert LINK not in caplog.text and "Connection refused" in records[0].getMessage()
    get_engine(service).dispose()


def test_the_viewer_answers_a_503_page(down_app, caplog):
    with caplog.at_level(logging.WARNING):
        response = down_app.test_client().get(f"/share/{LINK}")
    assert response.status_code == 503
    assert response.mimetype == "text/html"
    assert response.headers["Retry-After"].isdigit()
    assert "Try again" in response.get_data(as_text=True)
    # One line from the API, one from the viewer that read it; no traceback.
    assert len(_one_line_per_failure(caplog, "app.service.errors")) == 1
    assert len(_one_line_per_failure(caplog, "app.viewer.error_pages")) == 1


def test_readyz_fails_while_healthz_still_answers(down_app):
    client = down_app.test_client()
    assert client.get("/healthz").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.headers["Retry-After"].isdigit()
    assert ready.get_json() == {"status": "unavailable",
                                "checks": {"viewer_db": "unavailable", "api": "unavailable"}}
    service = down_app.extensions["service_app"].test_client().get("/readyz")
    assert service.status_code == 503
    assert service.get_json()["checks"] == {"db": "unavailable"}


def test_readyz_answers_200_when_everything_answers(app):
    ready = app.test_client().get("/readyz")
    assert ready.status_code == 200, ready.get_json()
    assert ready.get_json() == {"status": "ok", "checks": {"viewer_db": "ok", "api": "ok"}}
    assert app.extensions["service_app"].test_client().get("/readyz").status_code == 200


def test_the_viewers_readyz_checks_the_api_it_reads(app):
    point_viewer_at(app, f"http://127.0.0.1:{free_port()}", timeout=0.5)
    ready = app.test_client().get("/readyz")
    assert ready.status_code == 503
    assert ready.get_json()["checks"] == {"viewer_db": "ok", "api": "unavailable"}


def _fail_commits(monkeypatch, engine, error: Exception) -> None:
    def do_commit(_dbapi_connection):
        raise error

    monkeypatch.setattr(engine.dialect, "do_commit", do_commit)


def test_a_failing_commit_answers_the_envelope_and_keeps_nothing(app, org, monkeypatch,
                                                                  caplog):
    service = app.extensions["service_app"]
    _fail_commits(monkeypatch, get_engine(service), sqlite3.OperationalError("disk I/O error"))
    with caplog.at_level(logging.WARNING):
        response = app.test_client().post("/compute/v1/admin/workspaces", headers=org.headers,
                                          json={"name": "never committed"})
    assert_envelope(response, 503)
    assert response.headers["Retry-After"].isdigit()
    assert len(_one_line_per_failure(caplog, "app.service.errors")) == 1
    monkeypatch.undo()
    listed = app.test_client().get("/compute/v1/admin/workspaces", headers=org.headers)
    assert "never committed" not in listed.get_data(as_text=True)


def test_a_commit_refused_for_another_reason_is_the_500_envelope(app, org, monkeypatch):
    service = app.extensions["service_app"]
    _fail_commits(monkeypatch, get_engine(service),
                  sqlite3.IntegrityError("FOREIGN KEY constraint failed"))
    response = app.test_client().post("/compute/v1/admin/workspaces", headers=org.headers,
                                      json={"name": "refused"})
    assert_envelope(response, 500)


def test_a_failing_commit_of_the_viewer_store_is_a_503_page(app, monkeypatch):
    @app.get("/test-writes-the-viewer-store")
    def _writes():
        viewer_store.get_conn()  # the request's transaction, committed before answering
        return "written"

    _fail_commits(monkeypatch, viewer_store.get_engine(app),
                  sqlite3.OperationalError("database is locked"))
    response = app.test_client().get("/test-writes-the-viewer-store")
    assert response.status_code == 503
    assert response.headers["Retry-After"].isdigit()
    # The page went through the viewer's response hooks like any other (security headers).
    assert "Content-Security-Policy" in response.headers
