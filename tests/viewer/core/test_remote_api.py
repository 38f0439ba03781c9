"""The viewer against a remote deployment of the API over real HTTP: the same pages and
the same bytes as in-process. Each half served alone by gunicorn: ``tests/test_wsgi.py``."""

from __future__ import annotations

import pytest

from tests.support.links import point_viewer_at, seed_link


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


def test_the_viewer_alone_refuses_to_start_without_an_api_url(tmp_path):
    from app import create_viewer_app

    with pytest.raises(RuntimeError, match="FLASK_COMPUTE_API_URL"):
        create_viewer_app(None, {"TESTING": True, "SECRET_KEY": "k"},
                          instance_path=str(tmp_path / "instance"))


def test_email_link_without_a_verified_address_goes_to_sign_in(app, org, client):
    from tests.support import factories

    shared = seed_link(app, org)
    link = factories.make_link(app, org, pipeline_ids=[shared.pipelines["protein_design"]],
                               access_mode="email", allowed_emails=["a@example.com"])
    response = client.get(f"/share/{link.id}")
    # The API's 401 goes through the sign-in seam: a redirect to the sign-in page.
    assert response.status_code == 302
    assert response.headers["Location"].startswith(f"/share/{link.id}/sign-in")
    assert response.headers["Referrer-Policy"] == "no-referrer"
