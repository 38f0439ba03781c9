"""The viewer against a real misbehaving API: down, slow, 5xx, garbage; its ``/readyz``
saying so; recovery when the API is back; and an expired presigned URL that must be
refreshed once. (Moved here from tests/viewer: part of the fault suite.)"""

from __future__ import annotations

import time

import pytest
from werkzeug.wrappers import Response

from tests.support.fake_api import FakeApi, dripper, json_response, sleeper, status
from tests.support.links import point_viewer_at
from tests.support.servers import free_port

LINK = "sl_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"


@pytest.fixture
def remote(app):
    """Point the viewer at a fake API (started by the test); stop it afterwards."""
    servers = []

    def start(handler, timeout: float = 0.5) -> FakeApi:
        server = FakeApi(handler)
        servers.append(server)
        point_viewer_at(app, server.url, timeout=timeout)
        return server

    yield start
    for server in servers:
        server.stop()


def assert_unavailable_page(response, code: int) -> str:
    """Check a 5xx page: status, retry link, Retry-After, no stack trace."""
    body = response.get_data(as_text=True)
    assert response.status_code == code, body[:500]
    assert response.mimetype == "text/html"
    assert f'href="/share/{LINK}"' in body and "Try again" in body
    assert response.headers["Retry-After"].isdigit()
    assert "Traceback" not in body and "httpx" not in body
    assert response.headers["Cache-Control"] == "no-store"
    return body


@pytest.mark.parametrize("code", [500, 502, 520])
def test_api_5xx_gives_a_502_page(client, remote, code):
    remote(status(code))
    assert_unavailable_page(client.get(f"/share/{LINK}"), 502)


def test_api_503_gives_a_503_page(client, remote):
    remote(status(503))
    assert_unavailable_page(client.get(f"/share/{LINK}"), 503)


def test_api_that_answers_garbage_gives_a_502_page(client, remote):
    remote(lambda _request: Response("<html>not json", mimetype="text/html"))
    assert_unavailable_page(client.get(f"/share/{LINK}"), 502)


def test_slow_api_gives_a_504_page_within_the_timeout(client, remote):
    server = remote(sleeper(5))
    started = time.monotonic()
    response = client.get(f"/share/{LINK}")
    elapsed = time.monotonic() - started
    assert_unavailable_page(response, 504)
    assert elapsed < 2.0, elapsed
    assert server.calls  # the request did reach the slow server


def test_api_that_trickles_its_answer_is_cut_off_too(client, remote):
    # 0.1 s between bytes never trips the 0.5 s read timeout; the overall deadline does.
    remote(dripper(4, pieces=40))
    started = time.monotonic()
    response = client.get(f"/share/{LINK}")
    elapsed = time.monotonic() - started
    assert_unavailable_page(response, 504)
    assert elapsed < 2.0, elapsed


def test_api_down_gives_a_502_page(client, app):
    point_viewer_at(app, f"http://127.0.0.1:{free_port()}", timeout=0.5)
    started = time.monotonic()
    response = client.get(f"/share/{LINK}")
    assert_unavailable_page(response, 502)
    assert time.monotonic() - started < 2.0


def test_api_failure_during_results_page(client, remote):
    remote(status(500))
    response = client.get(f"/share/{LINK}/pipelines/pl_1?limit=50")
    body = response.get_data(as_text=True)
    assert response.status_code == 502
    # The retry link goes back to the very page, query included.
    assert f'href="/share/{LINK}/pipelines/pl_1?limit=50"' in body


def test_api_404_401_403_map_to_pages(client, remote):
    remote(status(404))
    assert client.get(f"/share/{LINK}").status_code == 404
    # 401/403 go through the sign-in seam: never the 404 page, never a 5xx.
    remote(status(401))
    response = client.get(f"/share/{LINK}")
    assert response.status_code in (200, 302, 401)
    assert "not available" not in response.get_data(as_text=True)
    remote(status(403))
    assert client.get(f"/share/{LINK}").status_code in (200, 403)


def test_expired_presigned_url_is_refreshed_once(client, remote):
    downloads = []

    def handler(request):
        if request.path == "/files/archive":
            downloads.append(request.args["n"])
            if len(downloads) == 1:
                return status(403)(request)  # the first URL's signature has expired
            return Response(
                b"fresh bytes", mimetype="application/zip",
                headers={"Content-Disposition": "attachment; filename=r1.zip"})
        if request.path.endswith("/results"):
            n = len([c for c in server.calls if "/results" in c])
            return json_response({"data": [{"id": "res_1", "artifacts": {"archive": {
                "url": f"{server.url}/files/archive?n={n}",
                "url_expires_at": "2030-01-01T00:00:00Z"}}}],
                "first_id": "res_1", "last_id": "res_1", "has_more": False})
        return status(404)(request)

    server = remote(handler, timeout=5)  # four calls: not a timing test
    response = client.get(f"/share/{LINK}/pipelines/pl_1/results/res_1/artifacts/archive")
    assert response.status_code == 200
    assert response.get_data() == b"fresh bytes"
    assert downloads == ["1", "2"]
    assert response.headers["Content-Disposition"] == 'attachment; filename="r1.zip"'


def test_a_url_that_stays_expired_is_a_404_not_a_loop(client, remote):
    def handler(request):
        if request.path == "/files/archive":
            return status(403)(request)
        return json_response({"data": [{"id": "res_1", "artifacts": {"archive": {
            "url": f"{server.url}/files/archive", "url_expires_at": "2030-01-01T00:00:00Z"}}}],
            "first_id": "res_1", "last_id": "res_1", "has_more": False})

    server = remote(handler, timeout=5)  # four calls: not a timing test
    response = client.get(f"/share/{LINK}/pipelines/pl_1/results/res_1/artifacts/archive")
    assert response.status_code == 404
    assert len([c for c in server.calls if c.startswith("/files/")]) == 2


@pytest.mark.parametrize("handler", [status(500), status(503), sleeper(5)],
                         ids=["5xx", "503", "slow"])
def test_readyz_of_the_viewer_says_the_api_is_not_ready(app, remote, handler):
    remote(handler)
    started = time.monotonic()
    ready = app.test_client().get("/readyz")
    assert ready.status_code == 503
    assert ready.get_json()["checks"]["api"] == "unavailable"
    assert time.monotonic() - started < 2.0


def test_the_viewer_recovers_when_the_api_comes_back(client, remote):
    remote(status(503))
    assert client.get(f"/share/{LINK}").status_code == 503
    remote(lambda _request: json_response({"id": LINK, "pipelines": [], "predictions": []}))
    assert client.get("/readyz").status_code == 200
    assert client.get(f"/share/{LINK}").status_code == 200
