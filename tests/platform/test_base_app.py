"""FLASK_TRUSTED_HOSTS: any other Host header is a 400, pages and API alike (issue 22).

The viewer still reads its embedded API in-process (``Host: compute.internal``, which no
deployment lists), and its 400 page renders instead of failing on ``url_for``.
"""

from __future__ import annotations

import pytest

from app.platform.db import get_engine
from tests.support import factories
from tests.support.apps import make_org, make_test_app
from tests.support.databases import dispose_engines

TRUSTED = "http://share.example.org"


@pytest.fixture
def trusted_app(db_url, tmp_path, monkeypatch):
    """The app configured from the environment with one trusted host and a suffix."""
    monkeypatch.setenv("FLASK_TRUSTED_HOSTS", '["share.example.org", ".lab.example"]')
    application = make_test_app(db_url, tmp_path)
    yield application
    dispose_engines(application)


@pytest.mark.parametrize("value", ["share.example.org, .lab.example",
                                   '["share.example.org", ".lab.example"]'])
def test_the_variable_is_a_json_list_or_names_separated_by_commas(db_url, tmp_path,
                                                                   monkeypatch, value):
    monkeypatch.setenv("FLASK_TRUSTED_HOSTS", value)
    application = make_test_app(db_url, tmp_path)
    try:
        assert application.config["TRUSTED_HOSTS"] == ["share.example.org", ".lab.example"]
    finally:
        dispose_engines(application)


def test_another_host_is_a_400_on_pages_api_and_health(trusted_app):
    org = public_link(trusted_app)
    client = trusted_app.test_client()
    for path in ("/healthz", f"/share/{org['link']}", "/share/sl_unknown", "/nowhere",
                 "/compute/v1/share-links"):
        response = client.get(path, base_url="http://evil.example",
                              headers={"x-api-key": org["key"]})
        assert response.status_code == 400, path
    page = client.get(f"/share/{org['link']}", base_url="http://evil.example")
    assert "text/html" in page.content_type and b"evil.example" not in page.data


def test_trusted_hosts_read_the_embedded_api(trusted_app):
    org = public_link(trusted_app)
    client = trusted_app.test_client()
    assert client.get(f"/share/{org['link']}", base_url=TRUSTED).status_code == 200
    assert client.get(f"/share/{org['link']}",
                      base_url="http://eu.lab.example:8000").status_code == 200


def public_link(app) -> dict:
    """Make an organization with a public link over a pipeline; return its link and key."""
    org = make_org(app)
    with get_engine(app).begin() as conn:
        pipeline_id, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=2,
                                                   artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return {"link": link.id, "key": org.headers["x-api-key"]}
