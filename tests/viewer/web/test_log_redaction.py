"""Share ids never reach gunicorn's access or error log, nor the viewer's own log lines."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.links import seed_link
from tests.support.servers import free_port, start_gunicorn, stop_gunicorn


def wait_for_log(server, needle: str, count: int = 1, timeout: float = 5.0) -> str:
    """Return the log once ``needle`` shows up ``count`` times (lines are written async)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = server.log_text()
        if text.count(needle) >= count:
            return text
        time.sleep(0.1)
    return server.log_text()


def test_access_log_never_holds_a_share_id(app, org, live_server):
    shared = seed_link(app, org)
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    paths = [
        shared.url(), shared.url(f"/pipelines/{pd}?limit=2"),
        shared.url(f"/pipelines/{pd}/results/{rid}"),
        shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/archive"),
        shared.url("/pipelines/pl_unknown"),  # a 404 through the viewer
        f"/compute/v1/share/{shared.link_id}",  # the API itself
        f"/share/sl_{'x' * 32}",  # an unknown link
    ]
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        statuses = [client.get(path).status_code for path in paths]
    assert statuses == [200, 200, 200, 200, 404, 200, 404]
    # Every request's access line, not only the first: two workers write in any order.
    wait_for_log(live_server, '"GET /compute/v1/share/[redacted] ')
    log = wait_for_log(live_server, '"GET /share/', count=len(paths) - 1)
    assert log.count('"GET /share/') == len(paths) - 1
    assert '"GET /share/[redacted] HTTP/1.1" 404' in log  # the unknown link, redacted
    assert shared.link_id not in log
    assert "x" * 32 not in log


@pytest.mark.slow  # starts gunicorn
def test_viewer_error_log_never_holds_a_share_id(tmp_path, db_url):
    link_id = "sl_" + "y" * 32
    server = start_gunicorn(
        {
            "FLASK_DATABASE_URL": db_url,
            "FLASK_SECRET_KEY": "live-secret",
            "FLASK_INSTANCE_PATH": str(tmp_path / "instance"),
            # Nothing listens here: every page is a 502 and the viewer logs a warning.
            "FLASK_COMPUTE_API_URL": f"http://127.0.0.1:{free_port()}/base/share/{link_id}",
        },
        tmp_path, workers=1,
    )
    try:
        response = httpx.get(f"{server.url}/share/{link_id}", timeout=10)
        assert response.status_code == 502
        log = wait_for_log(server, "compute API failure")
    finally:
        stop_gunicorn(server)
    assert "compute API failure (502)" in log
    assert link_id not in log and "y" * 32 not in log
