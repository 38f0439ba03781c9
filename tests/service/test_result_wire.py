"""A results page written from stored JSON is the page the validated record models write.

``result_wire`` skips pydantic's validation of each stored record; these tests hold it to
the models of ``result_records``: for every kind, with and without the optional fields,
the bytes parse to exactly what ``result_record`` + the page model dump, and a stored
non-finite number still reaches the wire as JSON.
"""

from __future__ import annotations

import json

import pytest

from app import domain
from app.platform.db import get_conn, get_engine
from app.service import result_records, result_wire
from app.service.artifacts import Presigner
from app.store import results as results_store
from app.store import schema
from tests.support import factories, hostile_records
from tests.support.hostile_records import HUGE


def _both(kind: str, pipeline_id: str, limit: int, after_id: str | None = None):
    """Return (the raw-written page, the models' page) as parsed JSON, one presigner."""
    conn = get_conn()
    raw = results_store.results_page(conn, pipeline_id, limit=limit, after_id=after_id,
                                     raw=True)
    parsed = results_store.results_page(conn, pipeline_id, limit=limit, after_id=after_id)
    files = results_store.artifact_files_for_results(conn, [r.id for r in raw.rows])
    presigner = Presigner.for_request(now=1_800_000_000)
    fast = result_wire.page_json(kind, result_records.PAGE_MODELS[kind], raw.rows, files,
                                 presigner, raw.has_more)
    records = [result_records.result_record(
        kind, row, {role: presigner.sign_file(file)
                    for role, file in files.get(row.id, {}).items()}) for row in parsed.rows]
    model = result_records.PAGE_MODELS[kind].of(records, parsed.has_more)
    assert fast.model is result_records.PAGE_MODELS[kind]
    return json.loads(fast.body), json.loads(model.model_dump_json())


@pytest.mark.parametrize("kind", factories.KINDS)
@pytest.mark.dialect  # stored JSON read back as text
def test_every_kind_is_written_as_its_model_writes_it(app, org, kind):
    with get_engine(app).begin() as conn:
        pipeline, ids = factories.insert_pipeline(conn, org.workspace_id, kind, 6)
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ids[:4],
                                       ligand=kind.startswith("small_molecule"))
    with app.extensions["service_app"].test_request_context():
        fast, modelled = _both(kind, pipeline, 4)
        assert fast == modelled and fast["has_more"] and len(fast["data"]) == 4
        # Optional fields absent on some rows are omitted, never null.
        assert all(None not in record.values() for record in fast["data"])
        fast, modelled = _both(kind, pipeline, 4, after_id=ids[3])
        assert fast == modelled and fast["data"][0]["artifacts"] == {}
        empty, modelled = _both(kind, pipeline, 4, after_id=ids[-1])
        assert empty == modelled == {"data": [], "first_id": None, "last_id": None,
                                     "has_more": False}


def test_stored_non_finite_numbers_and_nulls_stay_json():
    assert result_wire._json('{"iptm": NaN, "ptm": -Infinity, "note": "x"}') == \
        '{"iptm":null,"ptm":null,"note":"x"}'
    assert result_wire._json("null") is None and result_wire._json(None) is None
    assert result_wire._json('[{"code": "a"}]') == '[{"code": "a"}]'  # as stored


def test_a_stored_field_of_the_wrong_shape_is_left_out_and_said(app, client, org):
    records = hostile_records.seed(app, org)
    answer = client.get(f"/compute/v1/share/{records.link}/pipelines/{records.proteins}/results")
    assert answer.status_code == 200
    by_id = {record["id"]: record for record in answer.get_json()["data"]}

    def note(name: str) -> str:
        [message] = [w["message"] for w in by_id[records.ids[name]]["warnings"]
                     if w["code"] == domain.UNREADABLE_VALUES]
        return message

    assert by_id[records.ids["metrics a list"]]["metrics"] == {}
    assert note("metrics a list") == "Stored values that could not be read were left out: metrics"
    assert by_id[records.ids["entities a dict"]]["entities"] == []
    assert note("entities a dict").endswith(": entities")
    assert len(by_id[records.ids["warnings a string"]]["warnings"]) == 1
    assert note("warnings a string").endswith(": warnings")
    # Inside a well-shaped field, values go out as stored (the viewer reads them).
    assert by_id[records.ids["huge metric"]]["metrics"]["binding_confidence"] == HUGE
    healthy = by_id[records.healthy[hostile_records.PROTEINS][0]]
    assert all(w["code"] != domain.UNREADABLE_VALUES for w in healthy.get("warnings", []))


def test_a_molecule_without_smiles_is_served_with_empty_smiles_and_said(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id,
                                                     "small_molecule_design", 2)
        conn.execute(schema.results.update().where(schema.results.c.id == ids[0])
                     .values(smiles=None))
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    answer = client.get(f"/compute/v1/share/{link.id}/pipelines/{pipeline_id}/results")
    assert answer.status_code == 200
    first, second = answer.get_json()["data"]
    assert first["smiles"] == "" and second["smiles"] == factories.LIGAND_SMILES
    assert first["warnings"][-1] == {
        "code": domain.UNREADABLE_VALUES,
        "message": "Stored values that could not be read were left out: smiles"}
