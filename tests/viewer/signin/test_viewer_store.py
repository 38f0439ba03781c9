"""The viewer store on a database of its own (``VIEWER_DATABASE_URL``), per request.

The API's database holds only the API's schema here; the viewer's sign-ins must land in
the other database, and the API's must never see a viewer table. A request that fails
after writing to the store leaves nothing behind.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine, make_engine, migrate
from app.viewer import store as viewer_store
from app.viewer.access import state
from app.viewer.store.schema import signin_requests
from tests.support.apps import make_test_app
from tests.support.databases import database_url as _database_url
from tests.support.signin import LISTED, ask_for_message, parse_mail, sign_in, submit_code

# The viewer store in a database of its own; a failed request's transaction rolled back.
pytestmark = pytest.mark.dialect


@pytest.fixture
def split_databases(tmp_path):
    """URLs of the API's database (API schema only) and another SQLite file (viewer)."""
    api_url, drop = _database_url(tmp_path)
    viewer_url = f"sqlite:///{tmp_path / 'viewer-store.sqlite3'}"
    for url, upgrade in ((api_url, migrate), (viewer_url, viewer_store.migrate)):
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
    yield api_url, viewer_url
    drop()


@pytest.fixture
def app(split_databases, tmp_path):
    """The app with its viewer store apart from the API's database (replaces conftest's)."""
    api_url, viewer_url = split_databases
    application = make_test_app(api_url, tmp_path)
    # Read when the viewer store's engine is first made, so setting it now is in time.
    application.config["VIEWER_DATABASE_URL"] = viewer_url
    yield application
    get_engine(application).dispose()
    viewer_store.get_engine(application).dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_sign_in_rows_land_in_the_viewer_database_only(
    mail_app, client, smtp, email_link, split_databases
):
    api_url, viewer_url = split_databases
    done = sign_in(client, smtp, email_link, LISTED)
    assert done.status_code == 302
    assert client.get(email_link.path()).status_code == 200

    engine = make_engine(viewer_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(signin_requests)).all()
    finally:
        engine.dispose()
    assert len(rows) == 1 and rows[0].used_at is not None

    api_tables = _tables(api_url)
    assert "signin_requests" not in api_tables
    assert not {name for name in api_tables if name.startswith("viewer_")}
    assert "share_links" in api_tables
    assert "share_links" not in _tables(viewer_url)


def test_a_request_that_fails_after_consuming_the_code_leaves_it_unused(
    mail_app, client, smtp, email_link, monkeypatch
):
    ask_for_message(client, email_link, LISTED)
    code = parse_mail(smtp.wait_for(LISTED)).code

    def broken(_link_id):
        raise RuntimeError("session store down")

    # The first step after the code is consumed fails, before the session changes.
    with monkeypatch.context() as patch:
        patch.setattr(state, "clear_pending", broken)
        failed = submit_code(client, email_link, code)
    assert failed.status_code == 500
    # The 500 page is an answer, so teardown saw no exception: the error handler's
    # rollback is what undid the attempt and the consumption.
    done = submit_code(client, email_link, code)
    assert done.status_code == 302
    assert client.get(email_link.path()).status_code == 200
