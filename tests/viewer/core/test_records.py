"""Malformed result records: a value that cannot be read is blanked and said, nothing else."""

from __future__ import annotations

import html
import io
import random
import zipfile

import pytest

from app.platform.db import get_engine
from app.store import schema
from app.viewer.core.records import (
    UNREADABLE_CODE,
    UNREADABLE_RECORDS,
    readable,
    readable_page,
)
from tests.support import factories, hostile_records
from tests.support.hostile_records import CORPUS, HUGE

HEALTHY = {"id": "res_1", "created_at": "2026-01-01T00:00:00.000Z", "smiles": "CCO",
           "metrics": {"iptm": 0.5, "optimization_score": -3},
           "entities": [{"type": "protein", "chain_ids": ["A"], "value": "MKV"}],
           "warnings": [{"code": "low", "message": "Low"}],
           "adme": {"lipophilicity": 1.0, "solubility": "high-risk"}, "artifacts": {}}


def note(record: dict) -> str:
    """Return the message of the record's unreadable-values warning."""
    [message] = [w["message"] for w in record["warnings"] if w["code"] == UNREADABLE_CODE]
    return message


def test_a_healthy_record_is_returned_as_it_came():
    assert readable(HEALTHY) is HEALTHY


@pytest.mark.parametrize(("fields", "blanked", "lost"), [
    ({"metrics": {"iptm": HUGE, "ptm": 0.2}}, {"metrics": {"ptm": 0.2}}, "metrics.iptm"),
    ({"metrics": {"iptm": float("inf"), "ptm": True}}, {"metrics": {}},
     "metrics.iptm, metrics.ptm"),
    ({"metrics": [0.1]}, {"metrics": {}}, "metrics"),
    ({"entities": {"value": "MKV"}}, {"entities": []}, "entities"),
    ({"entities": [{"type": "protein", "chain_ids": ["A"], "value": 12}, HEALTHY["entities"][0]]},
     {"entities": HEALTHY["entities"]}, "entities"),
    ({"adme": {"solubility": {"c": 1}, "permeability": HUGE, "lipophilicity": 2.0}},
     {"adme": {"lipophilicity": 2.0}}, "adme.permeability, adme.solubility"),
    ({"adme": "high"}, {"adme": None}, "adme"),
    ({"smiles": 42, "external_id": ["x"]}, {"smiles": None, "external_id": None},
     "smiles, external_id"),
])
def test_an_unreadable_value_is_blanked_and_named(fields, blanked, lost):
    answer = readable({**HEALTHY, **fields})
    assert {key: answer[key] for key in blanked} == blanked
    assert note(answer) == f"Values that could not be read were left blank: {lost}"
    assert answer["warnings"][0] == HEALTHY["warnings"][0]  # the record's own kept


def test_unreadable_warnings_are_replaced_by_the_note():
    answer = readable({**HEALTHY, "warnings": "low confidence"})
    assert [w["code"] for w in answer["warnings"]] == [UNREADABLE_CODE]
    answer = readable({**HEALTHY, "warnings": [{"code": 3}, {"code": "a", "message": "b"}]})
    assert [w["code"] for w in answer["warnings"]] == ["a", UNREADABLE_CODE]


@pytest.mark.parametrize("record_id", ["res_\u00e901", "res_02.x", "", 7, None, "r" * 65])
def test_a_record_without_a_readable_id_is_skipped_and_counted(record_id):
    page = readable_page({"data": [{**HEALTHY, "id": record_id}, HEALTHY], "has_more": True,
                          "last_id": "res_1"})
    assert page["data"] == [HEALTHY]
    assert page[UNREADABLE_RECORDS] == 1 and page["has_more"] is True


@pytest.fixture
def records(app, org) -> hostile_records.HostileRecords:
    return hostile_records.seed(app, org)


def readable_ids(records: hostile_records.HostileRecords, kind: str) -> list[str]:
    """Return the ids of a pipeline's results that the viewer can read."""
    return [*records.healthy[kind],
            *(records.ids[name] for name, (k, _) in CORPUS.items()
              if k == kind and name not in ("non-ASCII id", "id outside the pattern"))]


@pytest.mark.api_extensions  # what a remote API may send, not what the SDK double lets by
@pytest.mark.slow
def test_every_route_answers_and_says_what_it_could_not_read(client, records):
    for route in hostile_records.routes(records):
        answer = client.get(route)
        assert answer.status_code == 200 and answer.get_data(), route
    for kind, pipeline_id in ((hostile_records.PROTEINS, records.proteins),
                              (hostile_records.MOLECULES, records.molecules)):
        base = f"/share/{records.link}/pipelines/{pipeline_id}"
        ids = readable_ids(records, kind)
        table = html.unescape(client.get(base).text)
        assert all(result_id in table for result_id in ids)
        assert "Values that could not be read were left blank" in table
        ranked = html.unescape(client.get(f"{base}?sort=-binding_confidence").text)
        assert all(result_id in ranked for result_id in ids), "the index is built"
        skipped = len(ids) + 2 * (kind == hostile_records.PROTEINS) - len(ids)
        said = f"{skipped} results of this run could not be read (no id of the API)"
        assert (said in ranked) is (skipped > 0)
        first = html.unescape(client.get(f"{base}?sort=created_at&after_id=res_0").text)
        assert ("2 results of this page could not be read" in first) is (skipped > 0)
        plot = client.get(f"{base}/explore.json?sort=id").get_json()
        assert plot["indexed"] == plot["total"] == len(ids) + 2 * (
            kind == hostile_records.PROTEINS)
        exported = client.get(f"{base}/export.csv").text
        assert all(result_id in exported for result_id in ids)
        assert UNREADABLE_CODE in exported
        archive = zipfile.ZipFile(io.BytesIO(client.get(f"{base}/export.zip").get_data()))
        structures = " ".join(name for name in archive.namelist() if name.endswith(".cif"))
        assert all(result_id in structures for result_id in ids), "every structure"
        for name, (record_kind, _) in CORPUS.items():
            if record_kind == kind and records.ids[name] in ids and name != "smiles a number":
                page = client.get(f"{base}/results/{records.ids[name]}")
                assert page.status_code == 200, name
                assert "could not be read" in html.unescape(page.text), name


def test_null_values_are_no_values_not_unreadable_ones():
    record = {**HEALTHY, "metrics": {"iptm": None}, "adme": {"solubility": None},
              "entities": [{"type": "ligand_ccd", "value": "ATP"}]}
    assert readable(record) is record


@pytest.mark.api_extensions  # what a remote API may send, not what the SDK double lets by
def test_the_result_after_one_without_an_api_id_has_its_page(app, client, records):
    # Inserted after "res_02.x" in id order; its page is read before any index exists.
    with get_engine(app).begin() as conn:
        row = factories.result_row(hostile_records.PROTEINS, records.proteins, 0,
                                   random.Random(1))
        conn.execute(schema.results.insert(), [{**row, "id": "res_02y"}])
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ["res_02y"])
    page = client.get(f"/share/{records.link}/pipelines/{records.proteins}/results/res_02y")
    assert page.status_code == 200
    assert 'rel="prev"' not in page.text  # the one before cannot be linked to
