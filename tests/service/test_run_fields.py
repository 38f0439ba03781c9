"""A run's malformed stored progress or error: only that run reads differently."""

from __future__ import annotations

import pytest

from app.service.run_fields import (
    UNREADABLE_ERROR,
    UNREADABLE_MESSAGE,
    DesignProgress,
    MoleculeExploreProgress,
    MoleculeScreenProgress,
    build_progress,
    run_error,
)
from tests.support import hostile_runs
from tests.support.sdk_clients import sdk_client


@pytest.mark.parametrize("stored", [[1, 2], "running", 3, True])
def test_progress_that_is_not_an_object_reads_as_none_stored(stored):
    progress = build_progress(DesignProgress, stored, 5, "res_1", "pl_1")
    assert progress.model_dump(exclude_none=True) == {
        "num_proteins_generated": 5, "total_proteins_to_generate": 5,
        "latest_result_id": "res_1"}


def test_only_the_fields_that_do_not_validate_fall_back():
    stored = {"total_molecules_to_score": [9], "num_molecules_failed": 2, "phase": "dreaming",
              "library_size": 1e400, "rejection_summary": [], "num_molecules_scored": "x"}
    progress = build_progress(MoleculeExploreProgress, stored, 4, None, "pl_1")
    assert progress.model_dump(exclude_none=True) == {
        "num_molecules_failed": 2, "num_molecules_scored": 4, "phase": "scoring",
        "total_molecules_to_score": 4}


def test_a_readable_progress_is_served_as_stored():
    stored = {"total_molecules_to_screen": 10, "num_molecules_failed": 1,
              "rejection_summary": {"filtered_count": 2, "invalid_count": 0}}
    progress = build_progress(MoleculeScreenProgress, stored, 3, "res_9")
    assert progress.model_dump(exclude_none=True) == {
        **stored, "num_molecules_screened": 3, "latest_result_id": "res_9"}


def test_a_stored_error_record_is_served_as_stored():
    stored = {"code": "oom", "message": "Out of memory.", "details": {"gpu": 0}}
    assert run_error(stored, "pl_1").model_dump() == stored
    assert run_error(None, "pl_1") is None


@pytest.mark.parametrize(("stored", "code", "message"), [
    (["failed"], UNREADABLE_ERROR, UNREADABLE_MESSAGE),
    ("it broke", UNREADABLE_ERROR, UNREADABLE_MESSAGE),
    ({}, UNREADABLE_ERROR, UNREADABLE_MESSAGE),
    ({"code": 7, "message": "The run failed."}, UNREADABLE_ERROR, "The run failed."),
    ({"code": "oom", "message": ["x"]}, "oom", UNREADABLE_MESSAGE),
])
def test_an_error_that_is_not_an_error_record_is_marked_unreadable(stored, code, message):
    error = run_error(stored, "pl_1")
    assert (error.code, error.message) == (code, message)


@pytest.fixture
def runs(app, org) -> hostile_runs.HostileRuns:
    return hostile_runs.seed(app, org)


def test_the_share_read_serves_every_run_with_only_the_bad_fields_replaced(client, runs):
    answer = client.get(f"/compute/v1/share/{runs.link}")
    assert answer.status_code == 200
    body = answer.get_json()
    records = {record["id"]: record for record in body["pipelines"]}
    assert list(records) == [runs.healthy, *runs.hostile.values()]
    assert records[runs.healthy]["progress"] == {
        "num_proteins_generated": 3, "total_proteins_to_generate": 3,
        "latest_result_id": runs.healthy_results[-1]}
    assert records[runs.healthy]["error"] is None
    for pipeline_id in runs.hostile.values():
        assert records[pipeline_id]["progress"]["num_proteins_generated"] == 2
        assert records[pipeline_id]["progress"]["total_proteins_to_generate"] == 2
        assert records[pipeline_id]["status"] == "failed"
    lists, fields = records[runs.hostile["lists"]], records[runs.hostile["bad fields"]]
    assert lists["error"] == {"code": UNREADABLE_ERROR, "message": UNREADABLE_MESSAGE}
    assert fields["error"] == {"code": UNREADABLE_ERROR, "message": "The run failed.",
                               "details": {"step": 2}}
    prediction = body["predictions"][0]
    assert prediction["error"]["code"] == UNREADABLE_ERROR
    assert prediction["output"] is not None


def test_the_sdk_lists_and_retrieves_the_workspace_runs(app, org, runs):
    with sdk_client(app, org.admin_key) as sdk:
        listed = list(sdk.protein.design.list(limit=100))
        assert [run.id for run in listed] == [runs.healthy, *runs.hostile.values()]
        for pipeline_id in runs.hostile.values():
            run = sdk.protein.design.retrieve(pipeline_id)
            assert run.error.code == UNREADABLE_ERROR
            assert run.progress.num_proteins_generated == 2
        assert sdk.predictions.adme.retrieve(runs.prediction).error.code == UNREADABLE_ERROR


@pytest.mark.slow
def test_every_page_of_the_link_still_answers(client, runs):
    # The viewer reads through the SDK double: every record must validate strictly.
    overview = client.get(f"/share/{runs.link}")
    assert overview.status_code == 200
    for pipeline_id in [runs.healthy, *runs.hostile.values()]:
        assert pipeline_id in overview.text
        assert client.get(f"/share/{runs.link}/pipelines/{pipeline_id}").status_code == 200
    assert client.get(f"/share/{runs.link}/predictions/{runs.prediction}").status_code == 200
    page = client.get(f"/share/{runs.link}/pipelines/{runs.hostile['lists']}")
    assert UNREADABLE_ERROR in page.text and "stored error could not be read" in page.text
