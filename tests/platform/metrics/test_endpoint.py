"""``/metrics``: Prometheus counters an operator runs the service by (issue 22, item 6).

Scraped through gunicorn with two workers: requests of both workers add up, routes are
templates (no share id, key or path a client chose ever becomes a label), and only the
configured networks may read it: anyone else gets the ordinary 404.
"""

from __future__ import annotations

import re

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.servers import start_gunicorn, stop_gunicorn

# Scraped through gunicorn with two workers.
pytestmark = pytest.mark.slow


def samples(text: str, name: str) -> list:
    """Return the samples of metric family ``name`` in a scrape."""
    return [sample for family in text_string_to_metric_families(text)
            if family.name == name for sample in family.samples]


def test_the_endpoint_answers_loopback_and_404s_other_networks(app, client):
    client.get("/healthz")
    scrape = client.get("/metrics")
    assert scrape.status_code == 200
    assert scrape.headers["Cache-Control"] == "no-store"
    assert samples(scrape.get_data(as_text=True), "share_viewer_http_requests")

    app.extensions["metrics_networks"] = ()  # as with FLASK_METRICS_NETWORKS="" (nobody)
    refused = client.get("/metrics")
    unknown = client.get("/no-such-page")
    assert refused.status_code == unknown.status_code == 404
    assert "share_viewer" not in refused.get_data(as_text=True)


@pytest.fixture
def server(db_url, tmp_path, runner):
    """gunicorn with two workers over a seeded demo database; the demo's ids."""
    import json

    seeded = runner.invoke(args=["seed-demo", "--json"])
    assert seeded.exit_code == 0, seeded.output
    demo = json.loads(seeded.output)
    instance = tmp_path / "instance"
    samples_dir = tmp_path / "metrics"
    samples_dir.mkdir()
    # A previous run's samples, which the server must not add to its own.
    (samples_dir / "counter_1.db").write_bytes(b"stale")
    live = start_gunicorn({"FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "metrics",
                           "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
                           "FLASK_INSTANCE_PATH": str(instance),
                           "PROMETHEUS_MULTIPROC_DIR": str(samples_dir)}, tmp_path, workers=2)
    yield live, demo, samples_dir
    stop_gunicorn(live)


def test_a_scrape_sums_both_workers_and_holds_no_secret(server):
    live, demo, samples_dir = server
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    secrets = [link, demo["admin_key"], demo["workspace_key"], pipeline]
    pages = [f"/share/{link}", f"/share/{link}/pipelines/{pipeline}",
             f"/share/{link}/pipelines/{pipeline}/export.csv", "/share/sl_nosuchlinknosuchlink00"]
    # A connection per request, so that both workers answer some.
    with httpx.Client(base_url=live.url, timeout=60, headers={"Connection": "close"}) as http:
        answered = [http.get(page).status_code for page in pages for _ in range(10)]
        http.get("/compute/v1/admin/workspaces", headers={"x-api-key": demo["admin_key"]})
        # A sorted view builds the pipeline's exploration index (inside the request: small).
        sorted_view = http.get(f"/share/{link}/pipelines/{pipeline}?sort=-binding_confidence")
        text = http.get("/metrics").text
    assert sorted_view.status_code == 200
    assert answered.count(200) == 30 and answered.count(404) == 10
    writers = {path.stem.split("_")[-1] for path in samples_dir.glob("counter_*.db")}
    assert "1" not in writers and len(writers) == 2, writers  # stale file gone; two workers

    requests = {(s.labels["route"], s.labels["status"]): s.value
                for s in samples(text, "share_viewer_http_requests")}
    # 40 requests over two workers: each worker's file is summed, whichever answers.
    assert requests[("/share/<link_id>", "200")] == 10
    assert requests[("/share/<link_id>/pipelines/<pipeline_id>", "200")] == 10 + 1  # sorted
    assert requests[("/share/<link_id>", "404")] == 10
    assert requests[("/compute/v1/admin/workspaces", "200")] == 1
    exports = {s.labels["format"]: s.value for s in samples(text, "share_viewer_exports")}
    assert exports == {"csv": 10.0}
    latency = samples(text, "share_viewer_http_request_duration_seconds")
    assert any(s.name.endswith("_count") and s.value == 10 for s in latency)
    api_calls = {(s.labels["call"], s.labels["outcome"]): s.value
                 for s in samples(text, "share_viewer_api_calls")}
    assert api_calls[("share", "ok")] >= 30 and api_calls.get(("share", "error"), 0) == 0
    builds = {s.labels["outcome"]: s.value for s in samples(text, "share_viewer_index_builds")}
    assert builds == {"complete": 1.0}
    assert any(s.name.endswith("_count") and s.value == 1
               for s in samples(text, "share_viewer_index_build_duration_seconds"))
    for secret in secrets:
        assert secret not in text
    # Every route label is a template or the unmatched marker, never a concrete path.
    for route, _status in requests:
        assert route == "(unmatched)" or re.fullmatch(r"[/a-z0-9_.<>:(),\- ]+", route), route
