"""Retention keeps a stub of each run it purges (issue 19 item 11): the SDK's record with
``data_deleted_at`` set and ``input`` (a prediction's ``output`` too) null, validated
strictly with the SDK's models on every read; its results are an empty page; a repeat
purge leaves it alone; a new link cannot share it; test mode seeds again beside it."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.jobs import retention
from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from tests.service.test_sdk_contract import (
    API,
    MODEL_OF_PREDICTION,
    PIPELINE_TYPES,
    PREDICTION_TYPES,
    R,
    check_page,
    ok,
    seed_live,
    strict,
)
from tests.support import factories
from tests.support.admin import make_key

# Retention's locks; purged JSON columns set to SQL NULL, read back.
pytestmark = pytest.mark.dialect


def purge_all(app, days_ahead: int = 30):
    """Purge as of ``days_ahead`` days from now: everything seeded today expires."""
    return retention.purge_api(get_engine(app), app.config,
                               utcnow() + timedelta(days=days_ahead))


def stub_rows(app, table) -> dict:
    with get_engine(app).connect() as conn:
        return {row.id: row for row in conn.execute(
            sa.select(table).where(table.c.data_deleted_at.is_not(None)))}


def all_runs(client, headers) -> tuple[dict, dict]:
    """Every pipeline id by kind and prediction id by application the key lists."""
    pipelines = {kind: [run["id"] for run in ok(client.get(
        f"{API}{spec['path']}?limit=1000", headers=headers))["data"]]
        for kind, spec in PIPELINE_TYPES.items()}
    predictions = {app_: [run["id"] for run in ok(client.get(
        f"{API}{spec['path']}?limit=1000", headers=headers))["data"]]
        for app_, spec in PREDICTION_TYPES.items()}
    return pipelines, predictions


@pytest.mark.slow
def test_purged_runs_stay_as_stubs_that_validate_strictly(app, client, org):
    seed_live(app, org)
    pipelines, predictions = all_runs(client, org.headers)
    pipeline_ids = [pid for ids in pipelines.values() for pid in ids]
    prediction_ids = [pid for ids in predictions.values() for pid in ids]
    link = factories.make_link(app, org, pipeline_ids=pipeline_ids,
                               prediction_ids=prediction_ids).id
    before = ok(client.get(f"{API}/share/{link}"))
    assert all(p["data_deleted_at"] is None for p in before["pipelines"])
    counts = {p["id"]: p["progress"] for p in before["pipelines"]}

    done = purge_all(app)
    assert done.totals["pipelines"] == len(pipeline_ids)
    assert done.totals["predictions"] == len(prediction_ids) and done.totals["results"] > 0
    with get_engine(app).connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(schema.results)
                            ).scalar_one() == 0
        assert conn.execute(sa.select(sa.func.count()).select_from(schema.artifacts)
                            ).scalar_one() == 0
    stubbed = stub_rows(app, schema.pipelines)
    assert set(stubbed) == set(pipeline_ids)
    assert all(row.input is None for row in stubbed.values())

    # The share read: the same link, every run listed as its stub, strictly the SDK's.
    read = ok(client.get(f"{API}/share/{link}"))
    strict(R.ShareLinkReadResponse, read)
    assert [p["id"] for p in read["pipelines"]] == pipeline_ids
    assert [p["id"] for p in read["predictions"]] == prediction_ids
    kind_of = {pid: kind for kind, ids in pipelines.items() for pid in ids}
    for entry in read["pipelines"]:
        spec = PIPELINE_TYPES[kind_of[entry["id"]]]
        strict(spec["member"], entry)
        assert entry["data_deleted_at"] and entry["input"] is None
        # The progress says what the run made; no result is left to be the latest.
        assert "latest_result_id" not in entry["progress"]
        assert {k: v for k, v in entry["progress"].items() if k != "latest_result_id"} == \
            {k: v for k, v in counts[entry["id"]].items() if k != "latest_result_id"}
        for path in (f"{API}/share/{link}/pipelines/{entry['id']}/results",
                     f"{API}{spec['path']}/{entry['id']}/results"):
            page = ok(client.get(path, headers=org.headers))
            assert check_page(page, spec["result"]) == [] and page["has_more"] is False
        record = ok(client.get(f"{API}{spec['path']}/{entry['id']}", headers=org.headers))
        strict(spec["retrieve"], record)
        assert record == entry
    for entry in read["predictions"]:
        spec = PREDICTION_TYPES[MODEL_OF_PREDICTION[entry["model"]]]
        strict(spec["member"], entry)
        assert entry["data_deleted_at"] and entry["input"] is None and entry["output"] is None
        strict(spec["retrieve"], ok(client.get(f"{API}{spec['path']}/{entry['id']}",
                                               headers=org.headers)))
    # Lists still list the stubs, in the SDK's list shapes.
    for kind, spec in PIPELINE_TYPES.items():
        page = ok(client.get(f"{API}{spec['path']}?limit=1000", headers=org.headers))
        assert [run["id"] for run in check_page(page, spec["list"])] == pipelines[kind]

    # Deleting again is a no-op: the stubs keep the first deletion's time.
    again = purge_all(app, days_ahead=60)
    assert sum(again.totals.values()) == 0 and again.batches == 0
    assert {k: v.data_deleted_at for k, v in stub_rows(app, schema.pipelines).items()} == \
        {k: v.data_deleted_at for k, v in stubbed.items()}
    assert ok(client.get(f"{API}/share/{link}")) == read

    # A new link cannot share a stub (it would share nothing): the same 400 as before
    # the stubs existed, naming the id.
    refused = client.post(f"{API}/share-links", headers=org.headers, json={
        "expires_at": (utcnow() + timedelta(days=1)).isoformat() + "Z",
        "pipeline_ids": pipeline_ids[:1]})
    assert refused.status_code == 400
    assert pipeline_ids[0] in refused.get_json()["message"]


def test_a_crash_between_stub_and_results_is_finished_by_the_next_purge(app, org):
    """The stub commits before its results go: a purge that stopped there leaves results
    a later purge still finds and deletes, without counting the run twice."""
    with get_engine(app).begin() as conn:
        pipeline_id, _results = factories.insert_pipeline(conn, org.workspace_id,
                                                          n_results=4)
        conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == pipeline_id)
                     .values(data_deleted_at=utcnow()))
    done = purge_all(app)
    assert (done.totals["pipelines"], done.totals["results"]) == (0, 4)
    with get_engine(app).connect() as conn:
        count = conn.execute(sa.select(schema.pipelines.c.result_count)
                             .where(schema.pipelines.c.id == pipeline_id)).scalar_one()
    assert count == 4  # a stub keeps the count its run made
    assert sum(purge_all(app).totals.values()) == 0


@pytest.mark.slow
def test_test_mode_seeds_again_beside_its_stubs(app, client, org):
    headers = {"x-api-key": make_key(app, org, key_type="admin", livemode=False)}
    first, _ = all_runs(client, headers)  # the first test-key request seeds
    done = purge_all(app)
    assert done.totals["pipelines"] == sum(len(ids) for ids in first.values())
    second, _ = all_runs(client, headers)  # seeded again: fresh runs beside the stubs
    for kind, ids in first.items():
        assert set(ids) < set(second[kind]) or not ids
    fresh = [pid for kind, ids in second.items() for pid in ids if pid not in first[kind]]
    assert fresh and not set(fresh) & set(stub_rows(app, schema.pipelines))
