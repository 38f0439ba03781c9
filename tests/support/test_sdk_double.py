"""The SDK-fields-only API double (``tests/support/sdk_double.py``) itself.

Against hand-made answers: an SDK-valid answer goes through with its extension fields
gone and its values untouched; a declared required field dropped from one answer is a
loud 502; error bodies and files pass through. Then the viewer served alone against the
double over the seeded link (every kind, both predictions): every page type answers 200
with its content.
"""

from __future__ import annotations

import copy
import json

import pytest
import sqlalchemy as sa
from flask import Flask, Response, jsonify
from werkzeug.test import Client

from app.platform.db import get_engine
from app.store import schema
from tests.support import sdk_double
from tests.support.links import seed_link
from tests.support.sdk_double import SdkOnly

CREATED = "2026-11-20T09:30:00.123456Z"


def run_record(**overrides) -> dict:
    """Return an SDK-valid small-molecule design run record, with ``overrides``."""
    record = {
        "id": "pipe_sm", "created_at": CREATED, "started_at": CREATED, "completed_at": None,
        "engine": "boltzmol", "engine_version": "1.0",
        "pipeline": "boltzmol", "pipeline_version": "1.0",
        "livemode": False, "status": "succeeded", "workspace_id": "ws_1",
        "progress": {"num_molecules_generated": 2, "total_molecules_to_generate": 3,
                     "latest_result_id": "res_2"},
    }
    record.update(overrides)
    return record


def explore_record() -> dict:
    """Return an SDK-valid small-molecule explore run record."""
    return run_record(id="pipe_explore", progress={
        "phase": "scoring", "num_molecules_scored": 5, "num_molecules_failed": 1,
        "total_molecules_to_score": 10, "latest_result_id": "res_5"})


def screen_record() -> dict:
    """Return an SDK-valid protein library screen run record."""
    return run_record(id="pipe_screen", engine="boltzprot", pipeline="boltzprot", progress={
        "num_proteins_screened": 3, "num_proteins_failed": 0,
        "total_proteins_to_screen": 3})


def share_read(**overrides) -> dict:
    """Return an SDK-valid share read carrying extension fields of our own."""
    body = {
        "id": "sl_1", "created_at": CREATED, "expires_at": "2026-11-21T09:30:00Z",
        "workspace_id": "ws_1",
        "pipelines": [run_record(name="my run", kind="small_molecule_design",
                                 result_count=2),
                      explore_record(), screen_record()],
        "predictions": [{
            "id": "pred_1", "created_at": CREATED, "livemode": False, "model": "adme-v1",
            "status": "succeeded", "version": "1", "workspace_id": "ws_1",
            "application": "adme",
        }],
        "access_mode": "public", "livemode": False,
    }
    body.update(overrides)
    return body


def sm_result(n: int, **metrics) -> dict:
    """Return an SDK-valid small-molecule design result record."""
    url = {"url": f"/files/{n}.cif", "url_expires_at": CREATED}
    return {
        "id": f"res_{n}", "created_at": CREATED, "smiles": "CCO",
        "artifacts": {"archive": url, "structure": url},
        "metrics": {"binding_confidence": 0.5, "complex_iplddt": 0.7, "complex_plddt": 0.8,
                    "iptm": 0.6, "optimization_score": 1.25, "ptm": 0.9,
                    "structure_confidence": 0.75, **metrics},
    }


def fake_service(answers: dict[str, object]) -> Flask:
    """A WSGI app answering each path in ``answers`` (a JSON body or a Response)."""
    service = Flask("fake_service")

    @service.get("/compute/v1/<path:rest>")
    def answer(rest):
        found = answers.get(f"/compute/v1/{rest}")
        if found is None:
            return jsonify(error={"type": "not_found", "message": "Not found"}), 404
        return found if isinstance(found, Response) else jsonify(found)

    return service


def get(service: Flask, path: str):
    """GET ``path`` through the double wrapped around ``service``."""
    return Client(SdkOnly(service)).get(path)


def test_valid_share_read_passes_with_extensions_stripped():
    body = share_read()
    response = get(fake_service({"/compute/v1/share/sl_1": body}), "/compute/v1/share/sl_1")
    assert response.status_code == 200
    out = json.loads(response.get_data())
    # Our extension fields are gone, at the top and in a pipeline and a prediction.
    assert "access_mode" not in out and "livemode" not in out
    first = out["pipelines"][0]
    assert not {"name", "kind", "result_count"} & set(first)
    assert "application" not in out["predictions"][0]
    # Declared fields stay, exactly as sent (timestamps not re-formatted, nulls kept).
    expected = run_record()
    assert first == expected
    assert out["created_at"] == CREATED and first["completed_at"] is None
    # Each entry went through its own member: explore keeps its phase and scored count.
    assert out["pipelines"][1]["progress"] == explore_record()["progress"]
    assert out["pipelines"][2]["progress"]["num_proteins_screened"] == 3


@pytest.mark.parametrize("record, member", [
    (run_record(), "PipelineSmDesignRun"),
    (explore_record(), "PipelineSmExplore"),
    (run_record(progress={"num_molecules_screened": 1, "num_molecules_failed": 0,
                          "total_molecules_to_screen": 2}), "PipelineSmScreen"),
    (screen_record(), "PipelineProteinLibraryScreen"),
    (run_record(engine="boltzprot", pipeline="boltzprot", progress=None),
     "PipelineProteinDesignRunResponse"),
    (run_record(engine="boltz-protein-redesign", engine_version="v2026-03-01",
                pipeline="boltz-protein-redesign", pipeline_version="v2026-03-01"),
     "PipelineProteinRedesignRun"),
    (run_record(engine="boltz-protein-redesign", engine_version="v2026-07-14",
                pipeline="boltz-protein-redesign", pipeline_version="v2026-07-14"),
     "PipelineProteinSequenceRedesignRun"),
])
def test_each_pipeline_type_is_validated_against_its_own_member(record, member):
    assert sdk_double.pipeline_model(record).__name__ == member


def test_dropped_required_field_is_a_loud_502():
    body = share_read()
    del body["pipelines"][1]["status"]
    double = SdkOnly(fake_service({"/compute/v1/share/sl_1": body}))
    response = Client(double).get("/compute/v1/share/sl_1")
    assert response.status_code == 502
    message = response.get_json()["error"]["message"]
    assert "pipelines[1]" in message and "status" in message and "Field required" in message
    assert double.failures == [message]


@pytest.mark.parametrize("mutate", [
    lambda body: body.pop("workspace_id"),
    lambda body: body["pipelines"][0]["progress"].pop("total_molecules_to_generate"),
    lambda body: body["pipelines"][0].update(pipeline="boltz-unknown"),
    lambda body: body["predictions"][0].pop("model"),
    lambda body: body["pipelines"][0].update(created_at="yesterday"),
])
def test_any_answer_the_sdk_rejects_is_a_502(mutate):
    body = share_read()
    mutate(body)
    response = get(fake_service({"/compute/v1/share/sl_1": body}), "/compute/v1/share/sl_1")
    assert response.status_code == 502, response.get_data(as_text=True)


def test_results_page_is_validated_with_its_pipelines_item_model():
    page = {"data": [sm_result(1, made_up=3.0), sm_result(2)], "first_id": "res_1",
            "last_id": "res_2", "has_more": False, "total": 2}
    path = "/compute/v1/share/sl_1/pipelines/pipe_sm/results"
    service = fake_service({"/compute/v1/share/sl_1": share_read(), path: page})
    response = get(service, path + "?limit=2")
    assert response.status_code == 200, response.get_data(as_text=True)
    out = json.loads(response.get_data())
    assert set(out) == {"data", "first_id", "last_id", "has_more"}
    assert out["data"][0] == sm_result(1) and out["data"][1] == sm_result(2)


def test_results_page_of_another_type_is_refused():
    # A protein record on a small-molecule pipeline: no smiles, so a 502.
    page = {"data": [{k: v for k, v in sm_result(1).items() if k != "smiles"}],
            "first_id": "res_1", "last_id": "res_1", "has_more": False}
    path = "/compute/v1/share/sl_1/pipelines/pipe_sm/results"
    service = fake_service({"/compute/v1/share/sl_1": share_read(), path: page})
    response = get(service, path)
    assert response.status_code == 502
    assert "smiles" in response.get_json()["error"]["message"]


def test_results_page_without_its_envelope_is_refused():
    page = {"data": [sm_result(1)], "first_id": "res_1", "last_id": "res_1"}
    path = "/compute/v1/share/sl_1/pipelines/pipe_sm/results"
    service = fake_service({"/compute/v1/share/sl_1": share_read(), path: page})
    response = get(service, path)
    assert response.status_code == 502
    assert "has_more" in response.get_json()["error"]["message"]


def test_errors_and_files_pass_through_untouched():
    cif = Response(b"data_x\n", mimetype="chemical/x-mmcif")
    forbidden = Response(b'{"error": {"type": "forbidden", "extra": 1}}', status=403,
                         mimetype="application/json")
    service = fake_service({"/compute/v1/files/a.cif": cif,
                            "/compute/v1/share/sl_2": forbidden})
    assert get(service, "/compute/v1/files/a.cif").get_data() == b"data_x\n"
    response = get(service, "/compute/v1/share/sl_2")
    assert response.status_code == 403
    assert response.get_data() == b'{"error": {"type": "forbidden", "extra": 1}}'
    assert get(service, "/compute/v1/share/sl_9").status_code == 404


def test_declared_only_keeps_aliases_and_drops_nested_extras():
    raw = {"id": "pred_2", "created_at": CREATED, "livemode": True, "model": "boltz-2.1",
           "status": "pending", "version": "2.1", "workspace_id": "ws_1",
           "input": {"entities": [{"type": "protein", "chain_ids": ["A"], "value": "MK",
                                   "colour": "red"}],
                     "model_options": {"recycling_steps": 3}}}
    validated = sdk_double.validated_prediction(copy.deepcopy(raw), "prediction")
    out = sdk_double.declared_only(validated, raw)
    assert out["input"]["model_options"] == {"recycling_steps": 3}
    assert "colour" not in out["input"]["entities"][0]


# The viewer served alone against the double, over a link of every kind.


def page(client, path: str, *needles: str) -> str:
    """GET a viewer page; assert a 200 with content (and each of ``needles``)."""
    response = client.get(path)
    body = response.get_data(as_text=True)
    assert response.status_code == 200, (path, body[:2000])
    assert body.strip(), path
    for needle in needles:
        assert needle in body, (path, needle)
    return body


def key_paths(value, prefix: str = "") -> set[str]:
    """Every key path of a JSON value (list items share their list's path)."""
    if isinstance(value, dict):
        return {path for key, item in value.items()
                for path in {f"{prefix}.{key}"} | key_paths(item, f"{prefix}.{key}")}
    if isinstance(value, list):
        return {path for item in value for path in key_paths(item, f"{prefix}[]")}
    return set()


def test_every_test_app_reads_the_api_through_the_double(app, org):
    """The ``app`` fixture's viewer reads through the double: a metric the SDK does not
    declare, served by the API, never reaches the viewer."""
    shared = seed_link(app, org)
    pipeline = shared.pipelines["protein_design"]
    first = schema.results.c.id == shared.results["protein_design"][0]
    with get_engine(app).begin() as conn:
        metrics = conn.execute(sa.select(schema.results.c.metrics).where(first)).scalar_one()
        conn.execute(schema.results.update().where(first)
                     .values(metrics={**metrics, "beyond_the_sdk": 1.0}))
    path = f"/compute/v1/share/{shared.link_id}/pipelines/{pipeline}/results"
    served = app.extensions["service_app"].test_client().get(path).get_json()
    read = app.extensions["compute_api"].results(shared.link_id, pipeline)
    assert ".data[].metrics.beyond_the_sdk" in key_paths(served)
    assert ".data[].metrics.beyond_the_sdk" not in key_paths(read)
    assert app.extensions["sdk_double"].failures == []


@pytest.mark.api_extensions
def test_an_api_extensions_test_reads_the_service_whole(app):
    assert "sdk_double" not in app.extensions


@pytest.mark.slow
def test_viewer_served_alone_against_the_double(app, org):
    shared = seed_link(app, org)
    double = app.extensions["sdk_double"]
    client = app.test_client()
    overview = page(client, shared.url())
    for pipeline_id in shared.pipelines.values():
        assert f"/pipelines/{pipeline_id}" in overview
    for kind, pipeline_id in shared.pipelines.items():
        base = shared.url(f"/pipelines/{pipeline_id}")
        page(client, base, *shared.results[kind][:1])
        assert client.get(f"{base}/explore.json").get_json()
        for extension in ("csv", "json", "fasta", "sdf", "zip"):
            if extension == "fasta" and not kind.startswith("protein"):
                continue
            if extension == "sdf" and kind.startswith("protein"):
                continue
            response = client.get(f"{base}/export.{extension}")
            assert response.status_code == 200, (kind, extension, response.data[:500])
            assert response.get_data(), (kind, extension)
    kind = "protein_design"
    result = shared.url(f"/pipelines/{shared.pipelines[kind]}/results/{shared.results[kind][0]}")
    page(client, result, shared.results[kind][0])
    page(client, f"{result}/structure", "structure")
    for prediction_id in shared.predictions:
        page(client, shared.url(f"/predictions/{prediction_id}"), prediction_id)
    assert double.failures == []


def dropping(service, path_pattern, mutate):
    """Wrap ``service`` so that the JSON answers of ``path_pattern`` go through ``mutate``."""

    def wsgi(environ, start_response):
        if not path_pattern.match(environ.get("PATH_INFO", "")):
            return service(environ, start_response)
        captured = {}

        def start(status, headers, exc_info=None):
            captured.update(status=status, headers=headers)
            return lambda data: None

        body = json.loads(b"".join(service(environ, start)))
        mutate(body)
        payload = json.dumps(body).encode()
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], [*headers, ("Content-Length", str(len(payload)))])
        return [payload]

    return wsgi


def test_the_viewer_fails_when_one_answer_drops_a_declared_field(app, org):
    """The demonstration of the issue: drop ``status`` from one pipeline of the share read
    (or ``smiles`` from one result) and the pages reading it are no longer a 200."""
    from app.viewer.core import api_client

    shared = seed_link(app, org)
    service = app.extensions["service_app"]
    client = app.test_client()

    def no_status(body):
        body["pipelines"][0].pop("status")

    double = SdkOnly(dropping(service, sdk_double.SHARE_READ_PATH, no_status))
    app.extensions["compute_api"] = api_client.embedded(double)
    assert client.get(shared.url()).status_code == 502
    assert double.failures and "pipelines[0]" in double.failures[0]
    assert "status" in double.failures[0] and "Field required" in double.failures[0]

    def no_smiles(body):
        body["data"][0].pop("smiles")

    double = SdkOnly(dropping(service, sdk_double.SHARE_RESULTS_PATH, no_smiles))
    app.extensions["compute_api"] = api_client.embedded(double)
    pipeline_id = shared.pipelines["small_molecule_design"]
    assert client.get(shared.url(f"/pipelines/{pipeline_id}")).status_code != 200
    assert any("smiles" in failure for failure in double.failures)


def test_a_generic_protein_result_keeps_its_type():
    url = {"url": "/files/1.cif", "url_expires_at": CREATED}
    metrics = {"binding_confidence": 0.5, "helix_fraction": 0.1, "iptm": 0.2,
               "loop_fraction": 0.3, "min_interaction_pae": 2.0, "sheet_fraction": 0.1,
               "structure_confidence": 0.8, "ipsae_min": 0.4}
    records = [{"id": f"res_{n}", "created_at": CREATED, "artifacts": {"archive": url},
                "entities": [{"type": "protein", "chain_ids": ["A"], "value": "MK"}],
                "metrics": metrics, **kind} for n, kind in
               enumerate(({"type": "generic"}, {"type": "binder"}, {}))]
    page = {"data": records, "first_id": "res_0", "last_id": "res_2", "has_more": False}
    from boltz_api.types.protein import design_list_results_response as protein_design

    out = sdk_double.results_page_body(copy.deepcopy(page),
                                       protein_design.DesignListResultsResponse)
    assert [record.get("type") for record in out["data"]] == ["generic", "binder", None]
    # Declared metrics stay (ipsae_min is in the SDK's protein metrics); the generic
    # member declares only four.
    assert out["data"][1]["metrics"] == metrics
    assert set(out["data"][0]["metrics"]) == {"helix_fraction", "loop_fraction",
                                              "sheet_fraction", "structure_confidence"}
