"""Inserting pipelines, predictions, results and artifacts (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from app import domain
from app.platform.db import make_engine
from app.platform.ids import new_id
from app.store import catalog, schema
from app.store.organizations import create_organization

# Bulk inserts compiled per dialect and driver style; JSON and times read back.
pytestmark = pytest.mark.dialect

T0 = datetime(2026, 11, 1, 12, 0, 0)


@pytest.fixture
def engine(db_url):
    """An engine on the fresh test database (foreign keys on for SQLite)."""
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def workspace_id(engine) -> str:
    with engine.begin() as conn:
        _org, workspace, _key, _secret = create_organization(conn, "Catalog Org")
    return workspace.id


def _pipeline(workspace_id: str, kind: str = "protein_design", **overrides):
    values = dict(id=new_id("pipe"), workspace_id=workspace_id, kind=kind, name="run 1",
                  status="succeeded", input={"num_designs": 2, "target": [{"a": 1}]},
                  result_count=2, created_at=T0, completed_at=T0 + timedelta(hours=1))
    return catalog.PipelineRow(**{**values, **overrides})


def _count(conn, table) -> int:
    return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


def test_pipelines_round_trip_with_their_json_input(engine, workspace_id):
    pipelines = [_pipeline(workspace_id, kind) for kind in domain.PIPELINE_KINDS]
    with engine.begin() as conn:
        assert catalog.insert_pipelines(conn, pipelines) == len(domain.PIPELINE_KINDS)
    with engine.connect() as conn:
        rows = {r.id: r for r in conn.execute(sa.select(schema.pipelines))}
    for p in pipelines:
        row = rows[p.id]
        assert (row.kind, row.name, row.status, row.result_count) == (
            p.kind, "run 1", "succeeded", 2)
        assert row.input == {"num_designs": 2, "target": [{"a": 1}]}
        assert row.created_at == T0 and row.completed_at == T0 + timedelta(hours=1)
        # Rows written without the SDK's progress, times and error keep them null.
        assert (row.progress, row.started_at, row.stopped_at, row.error) == (None,) * 4


def test_pipelines_keep_their_progress_times_and_error(engine, workspace_id):
    from dataclasses import replace

    pipeline = replace(_pipeline(workspace_id, "small_molecule_explore"), status="failed",
                       progress={"phase": "scoring", "total_molecules_to_score": 50},
                       started_at=T0, stopped_at=T0 + timedelta(minutes=5),
                       error={"code": "timeout", "message": "Stopped after 5 minutes."})
    with engine.begin() as conn:
        catalog.insert_pipelines(conn, [pipeline])
    with engine.connect() as conn:
        row = conn.execute(sa.select(schema.pipelines)).one()
    assert row.progress == {"phase": "scoring", "total_molecules_to_score": 50}
    assert (row.started_at, row.stopped_at) == (T0, T0 + timedelta(minutes=5))
    assert row.error == {"code": "timeout", "message": "Stopped after 5 minutes."}


def test_an_unknown_kind_writes_nothing(engine, workspace_id):
    good, bad = _pipeline(workspace_id), _pipeline(workspace_id, "protein_folding")
    with engine.begin() as conn, pytest.raises(ValueError, match="protein_folding"):
        catalog.insert_pipelines(conn, [good, bad])
    with engine.connect() as conn:
        assert _count(conn, schema.pipelines) == 0


def test_empty_inputs_insert_nothing(engine):
    with engine.begin() as conn:
        assert catalog.insert_pipelines(conn, []) == 0
        assert catalog.insert_results(conn, iter([])) == 0
        assert catalog.insert_artifacts(conn, []) == 0
        assert catalog.insert_predictions(conn, []) == 0


def test_results_keep_every_field_and_null_optionals(engine, workspace_id):
    pipeline = _pipeline(workspace_id, "small_molecule_library_screen")
    full = catalog.NewResult(
        id=new_id("res"), pipeline_id=pipeline.id, created_at=T0,
        metrics={"iptm": 0.81, "optimization_score": -1.25}, smiles="CC(=O)Oc1ccccc1C(=O)O",
        adme={"lipophilicity": 1.2, "permeability": 8.5, "solubility": "high-confidence"},
        warnings=[{"code": "low_iptm", "message": "Interface pTM is low."}],
        external_id="L1300-01-A02",
    )
    bare = catalog.NewResult(id=new_id("res"), pipeline_id=pipeline.id,
                             created_at=T0 + timedelta(seconds=1), metrics={"iptm": 0.5},
                             variant="generic", entities=[{"type": "protein", "value": "MK"}])
    with engine.begin() as conn:
        catalog.insert_pipelines(conn, [pipeline])
        assert catalog.insert_results(conn, [full, bare]) == 2
    with engine.connect() as conn:
        rows = list(conn.execute(sa.select(schema.results).order_by(schema.results.c.id)))
    assert [r.id for r in rows] == [full.id, bare.id]
    assert rows[0].metrics == full.metrics and rows[0].adme == full.adme
    assert rows[0].warnings == full.warnings and rows[0].external_id == "L1300-01-A02"
    assert rows[0].smiles == full.smiles and rows[0].entities is None
    assert rows[1].variant == "generic" and rows[1].entities == bare.entities
    assert rows[1].warnings is None and rows[1].adme is None and rows[1].smiles is None


def test_a_result_of_an_unknown_pipeline_is_refused(engine):
    orphan = catalog.NewResult(id=new_id("res"), pipeline_id="pipe_missing", created_at=T0,
                               metrics={})
    with pytest.raises(IntegrityError), engine.begin() as conn:
        catalog.insert_results(conn, [orphan])


def _artifact(**owner) -> catalog.NewArtifact:
    return catalog.NewArtifact(
        id=new_id("art"), role="structure", filename="x.cif", content_type="chemical/x-mmcif",
        size=12, sha256="0" * 64, storage_path="00/00/" + "0" * 64, created_at=T0, **owner)


def test_artifacts_belong_to_exactly_one_owner(engine, workspace_id):
    pipeline = _pipeline(workspace_id)
    result = catalog.NewResult(id=new_id("res"), pipeline_id=pipeline.id, created_at=T0,
                               metrics={})
    prediction = catalog.PredictionRow(
        id=new_id("pred"), workspace_id=workspace_id, application="adme", name="panel",
        status="succeeded", inputs={"molecules": []}, outputs={"results": []},
        created_at=T0, completed_at=None)
    with engine.begin() as conn:
        catalog.insert_pipelines(conn, [pipeline])
        catalog.insert_results(conn, [result])
        assert catalog.insert_predictions(conn, [prediction]) == 1
        assert catalog.insert_artifacts(conn, [_artifact(result_id=result.id),
                                               _artifact(prediction_id=prediction.id)]) == 2
    for owners in ({}, {"result_id": result.id, "prediction_id": prediction.id}):
        with engine.begin() as conn, pytest.raises(ValueError, match="exactly one"):
            catalog.insert_artifacts(conn, [_artifact(result_id=result.id), _artifact(**owners)])
    with engine.connect() as conn:
        rows = list(conn.execute(sa.select(schema.artifacts)))
        stored = conn.execute(sa.select(schema.predictions)).one()
    assert {(r.result_id, r.prediction_id) for r in rows} == {
        (result.id, None), (None, prediction.id)}
    assert stored.inputs == {"molecules": []} and stored.completed_at is None
