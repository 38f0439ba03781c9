"""A pipeline type (or version) or prediction model the viewer does not know: plain pages.

The API is a scripted one on loopback (``tests.support.fake_api``) that sends SDK-shaped
records of a future pipeline (``pipeline: "boltzfuture"``) and a future model. Every page
answers 200 with the record's fields and its results as a generic table; never a 500.
"""

from __future__ import annotations

import json

import pytest
from werkzeug.wrappers import Request, Response

from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at

LINK = "sl_futurelink"
PIPELINE = "pl_future"
PREDICTION = "pred_future"
RESULTS = [{"id": f"res_{n:02d}", "created_at": f"2026-11-20T10:{n:02d}:00Z",
            "metrics": {"widget_score": round(0.1 * n, 2), "binding_confidence": 0.5},
            "gizmo": {"shape": "round"}}
           for n in range(1, 6)]
RUN = {
    "id": PIPELINE, "created_at": "2026-11-20T09:00:00Z", "completed_at": None,
    "data_deleted_at": None, "engine": "boltzfuture", "engine_version": "3.0",
    "pipeline": "boltzfuture", "pipeline_version": "3.0", "error": None,
    "input": {"widgets": 12, "target": {"entities": []}},
    "livemode": True, "progress": {"num_widgets_generated": 5,
                                   "total_widgets_to_generate": 12,
                                   "latest_result_id": "res_05"},
    "started_at": "2026-11-20T09:01:00Z", "status": "running", "stopped_at": None,
    "workspace_id": "ws_future",
}
SHARE = {
    "id": LINK, "created_at": "2026-11-20T08:00:00Z", "expires_at": "2099-01-01T00:00:00Z",
    "workspace_id": "ws_future", "pipelines": [RUN],
    "predictions": [{
        "id": PREDICTION, "created_at": "2026-11-20T09:00:00Z", "livemode": True,
        "model": "boltz-3", "version": "3.0", "status": "succeeded",
        "workspace_id": "ws_future", "input": {"things": ["a", "b"]},
        "output": {"score": 0.7, "best_sample": {"structure": {
            "url": "http://127.0.0.1:1/never", "url_expires_at": "2099-01-01T00:00:00Z"}}},
    }],
}


def _page(request: Request) -> dict:
    """Answer one results page with the API's cursor rules (ids, after_id, before_id)."""
    args = request.args
    limit = int(args.get("limit") or 100)
    records = RESULTS
    if args.get("ids"):
        wanted = args["ids"].split(",")
        records = [r for r in RESULTS if r["id"] in wanted]
    elif args.get("before_id"):
        records = [r for r in RESULTS if r["id"] < args["before_id"]][-limit:]
    elif args.get("after_id"):
        records = [r for r in RESULTS if r["id"] > args["after_id"]]
    page = records[:limit]
    return {"data": page, "has_more": len(records) > len(page),
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None}


def handler(request: Request) -> Response:
    """The scripted API: the share read, the results pages, a 404 for the rest."""
    if request.path == f"/compute/v1/share/{LINK}":
        return json_response(SHARE)
    if request.path == f"/compute/v1/share/{LINK}/pipelines/{PIPELINE}/results":
        return json_response(_page(request))
    return json_response({"error": {"type": "not_found", "message": "no"}}, 404)


@pytest.fixture
def future_api(app):
    """The viewer of ``app`` reading the scripted API."""
    api = FakeApi(handler)
    point_viewer_at(app, api.url)
    yield api
    api.stop()


def ok(response) -> str:
    """Return the body of a page that must have answered 200."""
    assert response.status_code == 200, response.get_data(as_text=True)[:3000]
    return response.get_data(as_text=True)


def test_overview_names_the_unknown_pipeline_and_model(client, future_api):
    body = ok(client.get(f"/share/{LINK}"))
    assert "Pipeline boltzfuture 3.0" in body
    assert "a pipeline type this viewer does not know" in body
    assert f"/share/{LINK}/pipelines/{PIPELINE}" in body
    assert '<dt>Results</dt><dd class="num">5</dd>' in body  # num_widgets_generated
    assert "Prediction (boltz-3)" in body


def test_pipeline_page_lists_the_record_and_its_results_as_a_table(client, future_api):
    body = ok(client.get(f"/share/{LINK}/pipelines/{PIPELINE}"))
    assert "The run as the API describes it" in body
    assert "<code>boltzfuture</code>" in body and "<code>3.0</code>" in body
    assert "Total widgets to generate" in body and "Widgets" in body
    for record in RESULTS:
        assert f"/share/{LINK}/pipelines/{PIPELINE}/results/{record['id']}" in body


def test_result_page_of_an_unknown_pipeline(client, future_api):
    body = ok(client.get(f"/share/{LINK}/pipelines/{PIPELINE}/results/res_03"))
    assert "res_03" in body and "Pipeline boltzfuture 3.0" in body
    assert 'rel="prev"' in body and 'rel="next"' in body


def test_exports_of_an_unknown_pipeline(client, future_api):
    csv = client.get(f"/share/{LINK}/pipelines/{PIPELINE}/export.csv")
    assert csv.status_code == 200
    assert all(r["id"] in csv.get_data(as_text=True) for r in RESULTS)
    exported = client.get(f"/share/{LINK}/pipelines/{PIPELINE}/export.json")
    assert exported.status_code == 200
    document = json.loads(exported.get_data(as_text=True))
    assert document["pipeline"] == {"id": PIPELINE, "kind": "unknown",
                                    "label": "Pipeline boltzfuture 3.0"}
    assert [r["id"] for r in document["results"]] == [r["id"] for r in RESULTS]


def test_prediction_of_an_unknown_model_lists_its_values(client, future_api):
    body = ok(client.get(f"/share/{LINK}/predictions/{PREDICTION}"))
    assert "Prediction (boltz-3)" in body
    assert "Things" in body and "Score" in body
    # No 3D view is offered for a model the viewer does not know.
    assert f"/predictions/{PREDICTION}/structure" not in body
    assert client.get(f"/share/{LINK}/predictions/{PREDICTION}/structure").status_code == 404
