"""``flask --app app purge-expired``: the command, and what visitors see afterwards (share
links whose runs were purged list them as deleted, the viewer's exploration index)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from app import artifact_storage
from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import result_index
from tests.store.test_retention import World, aged_pipeline, ids, set_retention
from tests.support import factories

# Retention's row picking (FOR UPDATE SKIP LOCKED) and advisory locks.
pytestmark = pytest.mark.dialect

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')


def purge(runner, *args: str) -> dict:
    result = runner.invoke(args=["purge-expired", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def two_pipelines(app, org) -> tuple[World, str, str]:
    """A 1-day workspace with a 2-day-old and a 2-hour-old pipeline (3 results each)."""
    set_retention(app, org.workspace_id, "days", 1)
    store = artifact_storage.open_store(app.config)
    world = World(now=utcnow(), retention={org.workspace_id: 24})
    with get_engine(app).begin() as conn:
        old = aged_pipeline(conn, store, world, org.workspace_id, 48)
        young = aged_pipeline(conn, store, world, org.workspace_id, 2)
    return world, old, young


def index_state(app, pipeline_id):
    with viewer_engine(app).connect() as conn:
        return result_index.get(conn, pipeline_id)


def test_dry_run_as_of_and_repeats(app, org, runner):
    _world, _old, _young = two_pipelines(app, org)
    bad = runner.invoke(args=["purge-expired", "--as-of", "2030-01-01T00:00:00"])
    assert bad.exit_code == 2 and "needs a time zone" in bad.output
    assert runner.invoke(args=["purge-expired", "--as-of", "soon"]).exit_code == 2
    dry = purge(runner, "--dry-run")
    assert dry["dry_run"] and dry["totals"]["results"] == 3 and len(ids(app, schema.results)) == 6
    done = purge(runner)
    assert done["totals"] == dry["totals"] == {"pipelines": 1, "predictions": 0, "results": 3,
                                               "artifacts": 3, "files": 3}
    assert done["workspaces"] == [{"workspace_id": org.workspace_id, **done["totals"]}]
    assert purge(runner)["totals"]["results"] == 0  # a repeat is a no-op
    later = (utcnow() + timedelta(days=2)).isoformat() + "+00:00"
    assert purge(runner, "--as-of", later)["totals"]["results"] == 3  # now the young one
    assert ids(app, schema.pipelines) == set()  # both stubs now (see test_retention)


def test_links_keep_purged_runs_as_deleted_and_say_so(app, org, runner, client):
    _world, old, young = two_pipelines(app, org)
    both = factories.make_link(app, org, pipeline_ids=[old, young]).id
    only_old = factories.make_link(app, org, pipeline_ids=[old]).id
    for link in (both, only_old):  # the viewer indexes the old pipeline's results
        assert client.get(f"/share/{link}/pipelines/{old}?sort=iptm").status_code == 200
    assert index_state(app, old).ready

    summary = purge(runner)
    assert summary["viewer"]["indexes"] == 1 and index_state(app, old) is None
    # The API still lists the purged run, as a stub that says when its data went.
    remaining = client.get(f"/compute/v1/share/{both}").get_json()
    assert [p["id"] for p in remaining["pipelines"]] == [old, young]
    stub, alive = remaining["pipelines"]
    assert stub["data_deleted_at"] and stub["input"] is None
    assert alive["data_deleted_at"] is None
    assert client.get(f"/compute/v1/share/{only_old}/pipelines/{old}/results"
                      ).get_json()["data"] == []
    # A link left with nothing is still a valid link: its page says what was deleted.
    page = client.get(f"/share/{only_old}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "The run shared through this link was deleted under data retention" in text
    assert "under the workspace's data-retention policy" in text
    page = client.get(f"/share/{both}").get_data(as_text=True)
    assert "1 of the 2 runs shared through this link was deleted under data retention" in page
    assert f"/share/{both}/pipelines/{young}" in page
    assert f"/share/{both}/pipelines/{old}" not in page  # no link into deleted data
    gone = client.get(f"/share/{both}/pipelines/{old}")
    assert gone.status_code == 410
    assert "data-retention policy" in gone.get_data(as_text=True)


def test_the_viewer_index_no_longer_serves_purged_results(app, org, runner, client):
    world, _old, young = two_pipelines(app, org)
    link = factories.make_link(app, org, pipeline_ids=[young]).id
    path = f"/share/{link}/pipelines/{young}"
    before = ROW_ID.findall(client.get(f"{path}?sort=id").get_data(as_text=True))
    assert len(before) == 3 and index_state(app, young).indexed == 3
    # One result of the young pipeline was made long ago: it goes alone.
    with get_engine(app).begin() as conn:
        conn.execute(schema.results.update().where(schema.results.c.id == before[0])
                     .values(created_at=world.now - timedelta(days=3)))
    assert purge(runner)["totals"]["results"] == 4
    after = ROW_ID.findall(client.get(f"{path}?sort=id").get_data(as_text=True))
    assert after == before[1:] and index_state(app, young).indexed == 2
