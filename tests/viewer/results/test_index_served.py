"""Issue 21 items 4 and 5: what a current index serves without the API's result pages,
and that an index that is not current never stands in for the API.

The plain results page and the CSV, JSON and FASTA exports of a pipeline whose index is
current read no results page of the API (one call, the link's access check); the files
are the same as those the API's records give; a new result is on the next plain page;
an index being refreshed is not where an export's records come from.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.viewer.core import api_client
from app.viewer.explore.index import freshness, indexer
from app.viewer.store.result_index import IndexState
from tests.support import factories
from tests.support.sdk_runs import run_record

FIRST_ROW = re.compile(r'<tr data-result-id="([^"]+)"')


def _pipeline(app, org, n=40):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", n, seed=5,
            artifact_dir=app.config["ARTIFACT_DIR"])
    return factories.make_link(app, org, pipeline_ids=[pipeline_id]).id, pipeline_id


@pytest.fixture
def calls(monkeypatch):
    """The API calls the viewer makes, by kind ("share" or "results")."""
    made: list[str] = []
    original = api_client.ComputeApi._get

    def spy(self, path, bearer, params=None, raw=False):
        made.append("results" if path.endswith("/results") else "share")
        return original(self, path, bearer, params, raw)

    monkeypatch.setattr(api_client.ComputeApi, "_get", spy)
    return made


def _add_best_result(app, pipeline_id: str, count: int) -> str:
    """Add a result that ranks first (binding confidence 0.999); the run counts ``count``."""
    row = factories.result_row("protein_design", pipeline_id, count, random.Random(count))
    row["metrics"] = {**row["metrics"], "binding_confidence": 0.999}
    with get_engine(app).begin() as conn:
        conn.execute(schema.results.insert(), [row])
        # Its files too: a record without its archive is not the API's (the SDK requires it).
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], [row["id"]])
        conn.execute(sa.update(schema.pipelines).where(schema.pipelines.c.id == pipeline_id)
                     .values(result_count=count))
    return row["id"]


@pytest.mark.dialect
def test_a_current_index_serves_the_plain_page_and_exports_after_one_api_call(
        app, client, org, calls, monkeypatch):
    link_id, pipeline_id = _pipeline(app, org)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    client.get(f"{path}?limit=100")  # builds the index (the API's pages, once)
    calls.clear()
    assert client.get(f"{path}?limit=100").status_code == 200
    assert calls == ["share"]
    files = {}
    for fmt in ("csv", "json", "fasta"):
        calls.clear()
        response = client.get(f"{path}/export.{fmt}")
        assert response.status_code == 200 and calls == ["share"], fmt
        files[fmt] = response.get_data(as_text=True)
    # The same files as from the API's records (the index made to look out of date).
    monkeypatch.setattr(freshness, "is_current", lambda state, pipeline: False)
    for fmt, text in files.items():
        calls.clear()
        from_api = client.get(f"{path}/export.{fmt}").get_data(as_text=True)
        assert "results" in calls, fmt
        if fmt == "json":
            assert json.loads(text) == json.loads(from_api)
        else:
            assert text == from_api, fmt
    rows = list(csv.reader(io.StringIO(files["csv"])))
    assert len(rows) == 41 and [row[0] for row in rows[1:]] == [str(n) for n in range(1, 41)]


@pytest.mark.dialect
def test_a_new_result_is_on_the_next_plain_page(app, client, org):
    link_id, pipeline_id = _pipeline(app, org)
    path = f"/share/{link_id}/pipelines/{pipeline_id}?limit=100"
    before = FIRST_ROW.findall(client.get(path).get_data(as_text=True))
    assert len(before) == 40
    best = _add_best_result(app, pipeline_id, 41)
    after = FIRST_ROW.findall(client.get(path).get_data(as_text=True))
    assert after[0] == best and after[1:] == before


@pytest.mark.dialect
def test_an_index_being_refreshed_is_not_where_an_export_reads(app, client, org, calls,
                                                                monkeypatch):
    link_id, pipeline_id = _pipeline(app, org)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    client.get(path)
    best = _add_best_result(app, pipeline_id, 41)
    app.config["EXPLORE_SYNC_LIMIT"] = 0
    monkeypatch.setattr(indexer.Build, "run_in_background", lambda self: None)  # stalls
    calls.clear()
    rows = list(csv.reader(io.StringIO(client.get(f"{path}/export.csv").get_data(as_text=True))))
    # The refresh holds the lease: the records come from the API (in the last whole
    # index's order), never from the index as if it were the API's whole answer.
    assert "results" in calls
    assert len(rows) - 1 == 40 and best not in {row[2] for row in rows}


def _state(**changes) -> IndexState:
    values = dict(pipeline_id="pl_1", kind="protein_design", state="ready", target_count=3,
                  pipeline_status="succeeded", indexed=3, last_id="res_3", version=2,
                  lease_owner=None, lease_until=None, failure=None,
                  last_used_at=utcnow(), latest_result_id="res_3")
    return IndexState(**{**values, **changes})


def test_what_current_means():
    pipeline = run_record("protein_design", "pl_1", 3, latest_result_id="res_3")
    assert freshness.is_current(_state(), pipeline)
    assert not freshness.is_current(None, pipeline)
    assert not freshness.is_current(_state(state="building"), pipeline)
    assert not freshness.is_current(_state(latest_result_id="res_2"), pipeline)
    assert not freshness.is_current(_state(pipeline_status="running"), pipeline)
    assert not freshness.is_current(_state(indexed=2), pipeline)
    live = utcnow() + timedelta(seconds=30)
    assert not freshness.is_current(_state(lease_owner="w", lease_until=live), pipeline)
