"""Background work yields to requests: the viewer counts each request in flight until its
body is closed (a streamed export while it streams), and ``wait_idle`` waits for none."""

from __future__ import annotations

import gc
import threading
import time

import pytest
from flask import Flask, Response

from app.viewer.core import requests_in_flight


@pytest.fixture(autouse=True)
def _own_count(monkeypatch):
    """A count of this test's own requests: the count is the process's, and an earlier
    test of the same process may still hold a response it never closed (a streamed export
    of a test client), which would keep ``wait_idle`` waiting here. Bodies nobody holds
    are collected first, so none of them ends in this test's count."""
    gc.collect()
    monkeypatch.setattr(requests_in_flight, "_count", [0])


def _streaming_app() -> Flask:
    app = Flask(__name__)

    @app.get("/stream")
    def stream():
        return Response(iter(["a", "b", "c"]))

    app.wsgi_app = requests_in_flight.Counted(app.wsgi_app)
    return app


def test_a_streamed_body_counts_until_it_is_closed():
    client = _streaming_app().test_client()
    before = requests_in_flight.in_flight()
    response = client.get("/stream", buffered=False)
    assert requests_in_flight.in_flight() == before + 1
    assert not requests_in_flight.wait_idle(0.05)  # a body still streaming
    assert b"".join(response.response) == b"abc"
    response.close()
    assert requests_in_flight.in_flight() == before
    assert requests_in_flight.wait_idle(0.05)


def test_a_waiting_thread_goes_on_when_the_request_ends():
    client = _streaming_app().test_client()
    response = client.get("/stream", buffered=False)
    waited: list[float] = []

    def background() -> None:
        started = time.monotonic()
        requests_in_flight.wait_idle(5)
        waited.append(time.monotonic() - started)

    thread = threading.Thread(target=background)
    thread.start()
    time.sleep(0.2)
    assert not waited  # held while the export streams
    response.close()
    thread.join(5)
    assert waited and 0.15 < waited[0] < 2


def test_the_viewer_counts_its_requests(app, client):
    seen: list[int] = []
    app.add_url_rule("/share/_probe", "probe",
                     lambda: seen.append(requests_in_flight.in_flight()) or "ok")
    before = requests_in_flight.in_flight()
    assert client.get("/share/_probe").status_code == 200
    assert seen == [before + 1]
    assert requests_in_flight.in_flight() == before
