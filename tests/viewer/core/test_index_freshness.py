"""The exploration index is current when the run record says so: the same
``progress.latest_result_id``, status and progress count (the share read has no
``result_count``); the viewer store's migration adds the column that remembers it."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from werkzeug.wrappers import Request, Response

from app.platform.timeutil import utcnow
from app.viewer import store as viewer_store
from app.viewer.store import result_index
from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at

LINK, PIPELINE = "sl_freshlink", "pl_fresh"


def result(n: int) -> dict:
    """Return a protein design result record (the SDK's fields)."""
    return {"id": f"res_{n:03d}", "created_at": f"2026-11-20T10:{n % 60:02d}:00Z",
            "entities": [{"type": "protein", "chain_ids": ["A"], "value": "MKTAYIAK"}],
            "metrics": {"binding_confidence": n / 100, "iptm": 0.5,
                        "min_interaction_pae": 4.0, "structure_confidence": 0.7,
                        "helix_fraction": 0.5, "sheet_fraction": 0.2, "loop_fraction": 0.3},
            "warnings": []}


class Scripted:
    """A protein design run whose results and progress a test changes between requests."""

    def __init__(self, count: int):
        self.results = [result(n) for n in range(1, count + 1)]
        self.status = "running"
        self.latest = self.results[-1]["id"]

    def run(self) -> dict:
        """Return the run record as the share read sends it."""
        return {"id": PIPELINE, "created_at": "2026-11-20T09:00:00Z", "livemode": True,
                "engine": "boltzprot", "engine_version": "1.0", "pipeline": "boltzprot",
                "pipeline_version": "1.0", "status": self.status, "workspace_id": "ws_1",
                "input": None, "progress": {"num_proteins_generated": len(self.results),
                                            "total_proteins_to_generate": 100,
                                            "latest_result_id": self.latest}}

    def handler(self, request: Request) -> Response:
        """Answer the share read and the results pages (``after_id`` cursor)."""
        if request.path == f"/compute/v1/share/{LINK}":
            return json_response({"id": LINK, "created_at": "2026-11-20T08:00:00Z",
                                  "expires_at": "2099-01-01T00:00:00Z",
                                  "workspace_id": "ws_1", "pipelines": [self.run()],
                                  "predictions": []})
        if request.path.endswith("/results"):
            after = request.args.get("after_id")
            limit = int(request.args.get("limit") or 100)
            rest = [r for r in self.results if not after or r["id"] > after]
            page = copy.deepcopy(rest[:limit])
            return json_response({"data": page, "has_more": len(rest) > limit,
                                  "first_id": page[0]["id"] if page else None,
                                  "last_id": page[-1]["id"] if page else None})
        return json_response({"error": {"message": "no"}}, 404)


def results_calls(api: FakeApi) -> int:
    """Return how many results pages the viewer has asked for so far."""
    return sum(1 for call in api.calls if "/results" in call)


def index_state(app) -> result_index.IndexState | None:
    """Return the index state of the scripted pipeline."""
    with viewer_store.get_engine(app).connect() as conn:
        return result_index.get(conn, PIPELINE)


@pytest.mark.slow
def test_the_index_follows_latest_result_id_status_and_count(app, client):
    scripted = Scripted(6)
    api = FakeApi(scripted.handler)
    try:
        point_viewer_at(app, api.url)
        path = f"/share/{LINK}/pipelines/{PIPELINE}?sort=-binding_confidence"
        assert client.get(path).status_code == 200
        state = index_state(app)
        assert state.ready and state.indexed == 6 and state.kind == "protein_design"
        assert (state.latest_result_id, state.pipeline_status, state.target_count) == (
            "res_006", "running", 6)
        # Nothing changed: the index is current, no results page is read.
        before = results_calls(api)
        assert client.get(path).status_code == 200
        assert results_calls(api) == before
        # A new result: a new latest id and count; the index reads what follows.
        scripted.results.append(result(7))
        scripted.latest = "res_007"
        assert client.get(path).status_code == 200
        assert results_calls(api) > before
        state = index_state(app)
        assert (state.indexed, state.latest_result_id) == (7, "res_007")
        # The same count but the status moved on: refreshed too.
        before = results_calls(api)
        scripted.status = "succeeded"
        client.get(path)
        assert results_calls(api) > before
        assert index_state(app).pipeline_status == "succeeded"
    finally:
        api.stop()


def test_is_current_needs_the_same_latest_id_status_and_count(app):
    now = utcnow()
    with viewer_store.get_engine(app).begin() as conn:
        result_index.claim(conn, "pl_x", kind="protein_design", target_count=3,
                           status="running", owner="me", now=now,
                           lease=timedelta(seconds=30), latest_result_id="res_3")
        result_index.finish(conn, "pl_x", "me", now)
        conn.execute(sa.update(result_index.result_indexes).values(indexed=3))
        state = result_index.get(conn, "pl_x")
    assert state.latest_result_id == "res_3"
    assert state.is_current(3, "running", "res_3")
    assert not state.is_current(3, "running", "res_4")
    assert not state.is_current(3, "succeeded", "res_3")
    assert not state.is_current(4, "running", "res_3")
    # A count the API does not give (an unknown type): the latest id and status decide.
    assert state.is_current(None, "running", "res_3")


def test_init_db_reaches_the_latest_result_id_revision(app):
    """One head, v0005 on the way to it, and a migrated store at that head (what
    ``/readyz`` checks) with the column."""
    config = AlembicConfig()
    config.set_main_option("script_location", str(viewer_store.VIEWER_DB.migrations_dir))
    script = ScriptDirectory.from_config(config)
    (head,) = script.get_heads()
    assert "v0005" in {r.revision for r in script.iterate_revisions(head, "base")}
    assert script.get_revision("v0005").down_revision == "v0004"
    with viewer_store.get_engine(app).connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("viewer_result_indexes")}
        version = conn.execute(sa.text("SELECT version_num FROM viewer_alembic_version")
                               ).scalar_one()
    assert "latest_result_id" in columns and version == head
