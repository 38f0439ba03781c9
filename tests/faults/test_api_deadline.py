"""One deadline per page, not per API call: a slow API that answers every call just within
the timeout must not make a page that asks it several times wait several timeouts.

The API here is the real embedded service behind a loopback proxy that sleeps before each
answer (``slow_proxy``), so pages render real records. Once a response's body has started,
the deadline no longer applies: a download streams as long as its bytes keep coming, and a
streamed export reads each further page with a fresh deadline.
"""

from __future__ import annotations

import csv
import io
import time

import pytest
from werkzeug.wrappers import Response

from app.viewer.exports import sources, stream
from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at

TIMEOUT = 1.0


@pytest.fixture
def slow_proxy(app):
    """Start a proxy to the app's own API whose every answer takes ``delay`` s in all.

    The service's own time is part of the delay, not added to it: on a loaded machine an
    answer then still takes ``delay`` s, as long as the service itself is quicker.
    """
    servers = []

    def start(delay: float) -> FakeApi:
        service = app.extensions["service_app"].test_client()

        def handler(request):
            started = time.monotonic()
            answer = service.get(request.full_path, headers=dict(request.headers))
            time.sleep(max(0.0, delay - (time.monotonic() - started)))
            return Response(answer.get_data(), status=answer.status_code,
                            content_type=answer.content_type)

        server = FakeApi(handler)
        servers.append(server)
        point_viewer_at(app, server.url, timeout=TIMEOUT)
        return server

    yield start
    for server in servers:
        server.stop()


def _timed_get(client, path: str):
    started = time.monotonic()
    response = client.get(path)
    response.get_data()  # a streamed body is read before the clock stops
    return response, time.monotonic() - started


@pytest.mark.slow
def test_a_result_page_of_three_slow_calls_waits_one_timeout(client, shared, slow_proxy):
    # Each call takes 0.7 s, under the 1 s timeout; the page makes three (the link, the
    # result before, the result and its successor): 2.1 s with a deadline per call.
    proxy = slow_proxy(0.7)
    pipeline = shared.pipelines["protein_design"]
    result_id = shared.results["protein_design"][1]
    response, elapsed = _timed_get(
        client, shared.url(f"/pipelines/{pipeline}/results/{result_id}"))
    assert response.status_code == 504, (response.status_code, elapsed)
    assert elapsed < TIMEOUT + 0.45, elapsed
    assert response.headers["Retry-After"].isdigit()
    assert len(proxy.calls) <= 2  # the third call was never made: no time was left


def test_calls_within_the_deadline_still_make_the_page(client, shared, slow_proxy):
    slow_proxy(0.1)
    pipeline = shared.pipelines["protein_design"]
    result_id = shared.results["protein_design"][1]
    response, elapsed = _timed_get(
        client, shared.url(f"/pipelines/{pipeline}/results/{result_id}"))
    assert response.status_code == 200, elapsed
    assert result_id in response.get_data(as_text=True)


@pytest.mark.slow
def test_each_request_has_its_own_deadline(client, shared, slow_proxy):
    slow_proxy(0.25)
    pipeline = shared.pipelines["protein_design"]
    for _ in range(3):  # 3 x 2 calls x 0.25 s: more than one timeout in all, not per page
        assert client.get(shared.url(f"/pipelines/{pipeline}")).status_code == 200


@pytest.mark.slow
def test_a_streamed_export_reads_every_page_past_the_first_deadline(client, shared,
                                                                     slow_proxy, monkeypatch):
    monkeypatch.setattr(sources, "EXPORT_PAGE_SIZE", 1)  # one API call per result
    slow_proxy(0.3)  # the link and the first page: 0.6 s, within the page's deadline
    pipeline = shared.pipelines["protein_design"]
    # In the API's order (sort=id): the export walks the API's pages, no index between.
    response, elapsed = _timed_get(client,
                                   shared.url(f"/pipelines/{pipeline}/export.csv?sort=id"))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert stream.INCOMPLETE_MARKER not in response.get_data(as_text=True)
    assert [row[2] for row in rows[1:]] == shared.results["protein_design"]
    assert elapsed > TIMEOUT + 0.2  # five slow calls: the last ones after the deadline


@pytest.mark.slow
def test_a_download_streams_past_the_deadline_once_its_body_started(client, app):
    pieces = [bytes([n]) * 1000 for n in range(12)]

    def handler(request):
        if request.path == "/files/archive":
            def body():
                for piece in pieces:  # 1.8 s in all, each piece well within the timeout
                    time.sleep(0.15)
                    yield piece
            return Response(body(), mimetype="application/zip")
        time.sleep(0.5)  # half the page's deadline spent before the download starts
        return json_response({"data": [{"id": "res_1", "artifacts": {"archive": {
            "url": f"{server.url}/files/archive", "url_expires_at": "2030-01-01T00:00:00Z"}}}],
            "first_id": "res_1", "last_id": "res_1", "has_more": False})

    server = FakeApi(handler)
    try:
        point_viewer_at(app, server.url, timeout=TIMEOUT)
        response = client.get("/share/sl_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/pipelines/pl_1/"
                              "results/res_1/artifacts/archive")
        assert response.status_code == 200
        assert response.get_data() == b"".join(pieces)
    finally:
        server.stop()
