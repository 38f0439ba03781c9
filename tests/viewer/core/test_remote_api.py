"""The viewer against a remote deployment of the API over real HTTP: the same pages and
the same bytes as in-process; and each half served alone by gunicorn."""

from __future__ import annotations

import httpx
import pytest

from tests.support.servers import start_gunicorn, stop_gunicorn
from tests.viewer.conftest import point_viewer_at, seed_link


def test_viewer_reads_a_remote_api_over_http(app, org, client, live_server):
    shared = seed_link(app, org)
    point_viewer_at(app, live_server.url)
    pd = shared.pipelines["small_molecule_design"]
    rid = shared.results["small_molecule_design"][2]
    overview = client.get(shared.url())
    assert overview.status_code == 200
    assert "Small-molecule design" in overview.get_data(as_text=True)
    table = client.get(shared.url(f"/pipelines/{pd}"))
    assert rid in table.get_data(as_text=True)
    # The presigned URL points at the remote host: the viewer streams it over the network.
    download = client.get(shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/structure"))
    assert download.status_code == 200
    assert download.get_data() == f"data_{rid}\n".encode()
    gone = client.get(shared.url("/pipelines/pl_unknown"))
    assert gone.status_code == 404


@pytest.fixture
def two_halves(app, org, db_url, tmp_path):
    """``wsgi:service_app`` and ``wsgi:viewer_app`` in two gunicorn servers; the viewer
    reads the service over HTTP. Both share one instance folder (the JWT key pair)."""
    shared = seed_link(app, org)
    env = {"FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "halves-secret",
           "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
           "FLASK_INSTANCE_PATH": str(tmp_path / "instance")}
    service = start_gunicorn(env, tmp_path, workers=1, target="wsgi:service_app")
    try:
        viewer = start_gunicorn({**env, "FLASK_COMPUTE_API_URL": service.url}, tmp_path,
                                workers=1, target="wsgi:viewer_app")
    except BaseException:
        stop_gunicorn(service)
        raise
    yield shared, service, viewer
    stop_gunicorn(viewer)
    stop_gunicorn(service)


def test_the_viewer_alone_reads_the_service_alone_over_http(two_halves):
    shared, service, viewer = two_halves
    pipeline = shared.pipelines["protein_design"]
    result = shared.results["protein_design"][1]
    with httpx.Client(base_url=viewer.url, timeout=30) as browser:
        overview = browser.get(shared.url())
        assert overview.status_code == 200
        assert "Protein design" in overview.text
        table = browser.get(shared.url(f"/pipelines/{pipeline}"))
        assert table.status_code == 200 and result in table.text
        page = browser.get(shared.url(f"/pipelines/{pipeline}/results/{result}"))
        assert page.status_code == 200
        download = browser.get(shared.url(f"/pipelines/{pipeline}/results/{result}"
                                          "/artifacts/structure"))
        assert download.status_code == 200
        assert download.content == f"data_{result}\n".encode()
        # The viewer serves no API, and the service serves no pages: each half is alone.
        assert browser.get("/compute/v1/openapi.json").status_code == 404
    with httpx.Client(base_url=service.url, timeout=30) as api_client:
        assert api_client.get(shared.url()).status_code == 404
        read = api_client.get(f"/compute/v1/share/{shared.link_id}")
        assert read.status_code == 200
        assert [p["id"] for p in read.json()["pipelines"]] == list(shared.pipelines.values())
    # The viewer's requests reached the service: its access log has the API calls.
    assert "GET /compute/v1/share/[redacted]" in service.log_text()


def test_the_viewer_alone_refuses_to_start_without_an_api_url(tmp_path):
    from app import create_viewer_app

    with pytest.raises(RuntimeError, match="FLASK_COMPUTE_API_URL"):
        create_viewer_app(None, {"TESTING": True, "SECRET_KEY": "k"},
                          instance_path=str(tmp_path / "instance"))


def test_email_link_without_a_verified_address_goes_to_sign_in(app, org, client):
    from tests.service import factories

    shared = seed_link(app, org)
    link = factories.make_link(app, org, pipeline_ids=[shared.pipelines["protein_design"]],
                               access_mode="email", allowed_emails=["a@example.com"])
    response = client.get(f"/share/{link.id}")
    # The API's 401 goes through the sign-in seam: a redirect to the sign-in page.
    assert response.status_code == 302
    assert response.headers["Location"].startswith(f"/share/{link.id}/sign-in")
    assert response.headers["Referrer-Policy"] == "no-referrer"
