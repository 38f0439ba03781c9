"""Test mode (issue 11): test keys see, seed and share only test-mode resources.

Through the Flask test client, on SQLite and PostgreSQL: the first use of a test key seeds
its workspace once (also when two first uses race), live keys seed nothing, share links
keep to their key's mode, and nothing of it is billed. ``test_sdk_test_mode`` drives the
same through the official SDK and the viewer on a live server.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from app import artifact_storage
from app.domain import PIPELINE_KINDS
from app.platform.db import get_engine
from app.store import api_keys, schema
from app.synthetic import test_mode as synthetic_data
from tests.support import factories
from tests.support.factories import assert_envelope

LINKS = "/compute/v1/share-links"


def make_key(app, org, *, livemode: bool, admin: bool = False,
             workspace_id: str | None = None) -> dict[str, str]:
    """Create a key of ``org`` in the database; return headers that authenticate with it."""
    with get_engine(app).begin() as conn:
        _record, secret = api_keys.create_api_key(
            conn, organization_id=org.organization_id,
            workspace_id=None if admin else (workspace_id or org.workspace_id),
            key_type="admin" if admin else "workspace", name="test mode", livemode=livemode)
    return {"x-api-key": secret}


def rows(app, table: sa.Table, **where) -> list:
    """Return the rows of ``table`` matching ``where`` (column = value), in id order."""
    query = sa.select(table).where(*(table.c[k] == v for k, v in where.items()))
    with get_engine(app).connect() as conn:
        return conn.execute(query.order_by(table.c.id)).all()


def future() -> str:
    """Return tomorrow as an ISO 8601 UTC string."""
    return (datetime.now(UTC) + timedelta(days=1)).isoformat()


def first_use(client, headers) -> None:
    """Make one authenticated request (a 404 is fine: authentication already seeded)."""
    assert client.get(f"{LINKS}/sl_none", headers=headers).status_code == 404


@pytest.mark.dialect  # bulk inserts under the shared advisory lock
def test_first_use_of_a_test_key_seeds_its_workspace_once(app, client, org):
    headers = make_key(app, org, livemode=False)
    first_use(client, headers)
    pipelines = rows(app, schema.pipelines, workspace_id=org.workspace_id)
    assert sorted(p.kind for p in pipelines) == sorted(PIPELINE_KINDS)
    assert all(p.livemode is False for p in pipelines)
    assert all(p.result_count == synthetic_data.RESULTS_PER_PIPELINE for p in pipelines)
    predictions = rows(app, schema.predictions, workspace_id=org.workspace_id)
    assert sorted(p.application for p in predictions) == ["adme", "structure_and_binding"]
    assert all(p.livemode is False for p in predictions)
    # Real files behind every artifact row.
    artifacts = rows(app, schema.artifacts)
    assert artifacts
    for artifact in artifacts:
        path = artifact_storage.path_for(app.config["ARTIFACT_DIR"], artifact.storage_path)
        assert Path(path).stat().st_size == artifact.size
    [workspace] = rows(app, schema.workspaces, id=org.workspace_id)
    assert workspace.test_data_seeded_at is not None

    first_use(client, headers)
    first_use(client, make_key(app, org, livemode=False))
    assert len(rows(app, schema.pipelines)) == len(PIPELINE_KINDS)
    assert rows(app, schema.usage_records) == []  # test mode is not billed


def test_an_admin_test_key_seeds_the_default_workspace(app, client, org):
    other = factories.add_workspace(app, org)
    first_use(client, make_key(app, org, livemode=False, admin=True))
    assert len(rows(app, schema.pipelines, workspace_id=org.workspace_id)) == len(
        PIPELINE_KINDS)
    assert rows(app, schema.pipelines, workspace_id=other) == []


def test_live_keys_seed_nothing(app, client, org):
    first_use(client, org.headers)
    first_use(client, make_key(app, org, livemode=True))
    assert rows(app, schema.pipelines) == [] and rows(app, schema.predictions) == []
    assert rows(app, schema.workspaces, id=org.workspace_id)[0].test_data_seeded_at is None


@pytest.mark.dialect  # the seeding claim under concurrent transactions
@pytest.mark.slow
def test_two_racing_first_uses_seed_once(app, org):
    engine = get_engine(app)
    outcomes, barrier = [], threading.Barrier(2)

    def seed():
        barrier.wait()
        with engine.begin() as conn:
            outcomes.append(synthetic_data.seed_workspace(
                conn, org.workspace_id, app.config["ARTIFACT_DIR"]))

    threads = [threading.Thread(target=seed) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == [False, True]
    assert len(rows(app, schema.pipelines)) == len(PIPELINE_KINDS)


@pytest.fixture
def modes(app, client, org):
    """A live pipeline and prediction, a test key, and the test-mode data it seeded."""
    with get_engine(app).begin() as conn:
        live_pipeline, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=2)
        live_prediction = factories.insert_prediction(conn, org.workspace_id)
    test_headers = make_key(app, org, livemode=False)
    first_use(client, test_headers)
    test_pipelines = {p.kind: p.id for p in rows(app, schema.pipelines, livemode=False)}
    test_predictions = {p.application: p.id
                        for p in rows(app, schema.predictions, livemode=False)}
    return {"live_pipeline": live_pipeline, "live_prediction": live_prediction,
            "test": test_headers, "test_pipelines": test_pipelines,
            "test_predictions": test_predictions}


def create(client, headers, **body):
    """POST a share link with tomorrow's expiry."""
    return client.post(LINKS, headers=headers, json={"expires_at": future(), **body})


def test_a_test_key_shares_only_test_mode_ids(client, org, modes, other_org, app):
    made = create(client, modes["test"],
                  pipeline_ids=[modes["test_pipelines"]["protein_design"]],
                  prediction_ids=[modes["test_predictions"]["adme"]])
    assert made.status_code == 200, made.json
    read = client.get(f"/compute/v1/share/{made.json['id']}").json
    # The SDK's read has no top-level livemode: every record says its own.
    assert {p["livemode"] for p in read["pipelines"] + read["predictions"]} == {False}
    assert [p["id"] for p in read["pipelines"]] == [modes["test_pipelines"]["protein_design"]]

    live_id = modes["live_pipeline"]
    refused = assert_envelope(create(client, modes["test"], pipeline_ids=[live_id]), 400)
    with get_engine(app).begin() as conn:
        foreign, _ = factories.insert_pipeline(conn, other_org.workspace_id)
    elsewhere = assert_envelope(create(client, modes["test"], pipeline_ids=[foreign]), 400)
    # The same answer as another workspace's id, but for the id itself.
    assert refused["message"] == elsewhere["message"].replace(foreign, live_id)
    assert_envelope(create(client, modes["test"],
                           prediction_ids=[modes["live_prediction"]]), 400)


def test_a_live_key_shares_only_live_ids(client, org, modes):
    made = create(client, org.headers, pipeline_ids=[modes["live_pipeline"]])
    assert made.status_code == 200
    read = client.get(f"/compute/v1/share/{made.json['id']}").json
    assert [p["livemode"] for p in read["pipelines"]] == [True]
    test_id = modes["test_pipelines"]["protein_design"]
    refused = assert_envelope(create(client, org.headers, pipeline_ids=[test_id]), 400)
    assert test_id in refused["message"]


def test_keys_of_the_other_mode_get_404_for_a_link(app, client, org, modes):
    test_link = create(client, modes["test"],
                       pipeline_ids=[modes["test_pipelines"]["small_molecule_design"]]).json
    live_link = create(client, org.headers, pipeline_ids=[modes["live_pipeline"]]).json
    live_workspace_key = make_key(app, org, livemode=True)
    test_admin = make_key(app, org, livemode=False, admin=True)
    for headers in (org.headers, live_workspace_key):
        assert_envelope(client.get(f"{LINKS}/{test_link['id']}", headers=headers), 404)
        assert_envelope(client.post(f"{LINKS}/{test_link['id']}/archive", headers=headers),
                        404)
    for headers in (modes["test"], test_admin):
        assert_envelope(client.get(f"{LINKS}/{live_link['id']}", headers=headers), 404)
        assert client.get(f"{LINKS}/{test_link['id']}", headers=headers).status_code == 200
    assert client.post(f"{LINKS}/{test_link['id']}/archive",
                       headers=modes["test"]).status_code == 200


def test_test_mode_activity_adds_no_usage(app, client, org, modes):
    create(client, modes["test"], pipeline_ids=list(modes["test_pipelines"].values()))
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    report = client.get("/compute/v1/admin/usage", headers=org.headers, query_string={
        "starting_at": (now - timedelta(days=30)).isoformat(),
        "ending_at": (now + timedelta(hours=1)).isoformat(), "window_size": "DAY"})
    assert report.status_code == 200, report.json
    assert report.json["data"] == []
    assert rows(app, schema.usage_records) == []
