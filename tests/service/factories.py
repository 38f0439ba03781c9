"""Test data for share-link tests: pipelines, results, predictions and artifact files.

Rows are inserted directly with SQLAlchemy (creating them is the compute engine's job, not
an endpoint's); artifact files are written through ``app.artifact_storage`` so downloads
serve real bytes.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import sqlalchemy as sa

from app import artifact_storage
from app.db import get_engine
from app.ids import new_id
from app.store import schema
from app.store.share_links import ShareLink, create_share_link
from app.timeutil import utcnow

KINDS = (
    "protein_design", "protein_redesign", "protein_sequence_redesign",
    "protein_library_screen", "small_molecule_design", "small_molecule_library_screen",
)
BINDER_METRICS = ("binding_confidence", "helix_fraction", "iptm", "loop_fraction",
                  "min_interaction_pae", "sheet_fraction", "structure_confidence")
GENERIC_METRICS = ("helix_fraction", "loop_fraction", "sheet_fraction", "structure_confidence")
SM_METRICS = ("binding_confidence", "complex_iplddt", "complex_plddt", "iptm",
              "optimization_score", "ptm", "structure_confidence")


def assert_envelope(response, status: int) -> dict:
    """Assert that ``response`` is the JSON error envelope with ``status``; return it."""
    assert response.status_code == status, response.data[:500]
    assert response.is_json, response.data[:500]
    body = response.get_json()
    assert set(body) == {"statusCode", "error", "message"}
    assert body["statusCode"] == status
    assert isinstance(body["error"], str) and body["error"]
    assert isinstance(body["message"], str) and body["message"]
    return body


def _metrics(names: tuple[str, ...], rng: random.Random) -> dict:
    return {name: round(rng.random(), 4) for name in names}


def result_row(kind: str, pipeline_id: str, index: int, rng: random.Random,
               variant: str | None = None) -> dict:
    """Return a ``results`` row of ``kind`` (optional fields set on some rows only).

    protein_sequence_redesign rows alternate binder and generic unless ``variant`` is given.
    """
    row: dict = {
        "id": new_id("res"), "pipeline_id": pipeline_id, "created_at": utcnow(),
        "variant": None, "entities": None, "smiles": None, "adme": None,
        "external_id": None, "warnings": None,
    }
    if kind.startswith("protein"):
        row["entities"] = [
            {"type": "protein", "chain_ids": ["A"], "value": "MKTAYIAKQRQISFVKSHFSRQ",
             "modifications": []},
            {"type": "ligand_ccd", "chain_ids": ["B"], "value": "ATP"},
        ]
        row["metrics"] = _metrics(BINDER_METRICS, rng)
        if kind == "protein_sequence_redesign":
            row["variant"] = variant or ("generic" if index % 2 else "binder")
            if row["variant"] == "generic":
                row["metrics"] = _metrics(GENERIC_METRICS, rng)
    else:
        row["smiles"] = "CC(=O)Oc1ccccc1C(=O)O"
        row["metrics"] = _metrics(SM_METRICS, rng)
        if index % 2 == 0:
            row["adme"] = {"lipophilicity": 1.2, "permeability": 0.7,
                           "solubility": "high-confidence"}
    if kind.endswith("library_screen"):
        row["external_id"] = f"ext-{index}"
    if index % 3 == 0:
        row["warnings"] = [{"code": "low_confidence", "message": "Low structure confidence"}]
    return row


def insert_pipeline(conn, workspace_id: str, kind: str = "protein_design", n_results: int = 0,
                    *, status: str = "succeeded", name: str | None = "Test pipeline",
                    batch: int = 5000, seed: int = 0, variant: str | None = None,
                    livemode: bool = True) -> tuple[str, list[str]]:
    """Insert a pipeline with ``n_results`` results; return its id and result ids in order.

    ``variant`` makes every protein_sequence_redesign result a ``binder`` or ``generic``;
    ``livemode=False`` makes a test-mode pipeline.
    """
    pipeline_id = new_id("pl")
    conn.execute(schema.pipelines.insert().values(
        id=pipeline_id, workspace_id=workspace_id, kind=kind, name=name, status=status,
        input=None, result_count=n_results, created_at=utcnow(), completed_at=None,
        livemode=livemode,
    ))
    rng = random.Random(seed)
    ids: list[str] = []
    for start in range(0, n_results, batch):
        rows = [result_row(kind, pipeline_id, i, rng, variant)
                for i in range(start, min(start + batch, n_results))]
        conn.execute(schema.results.insert(), rows)
        ids.extend(row["id"] for row in rows)
    return pipeline_id, ids


def insert_prediction(conn, workspace_id: str, application: str = "structure_and_binding",
                      *, livemode: bool = True) -> str:
    """Insert a succeeded prediction (test-mode with ``livemode=False``); return its id."""
    prediction_id = new_id("pred")
    conn.execute(schema.predictions.insert().values(
        id=prediction_id, workspace_id=workspace_id, application=application, name=None,
        status="succeeded", inputs={"entities": []}, outputs={"best_sample": {}},
        created_at=utcnow(), completed_at=utcnow(), livemode=livemode,
    ))
    return prediction_id


def insert_artifact(conn, artifact_dir: str, *, content: bytes, role: str, filename: str,
                    content_type: str, result_id: str | None = None,
                    prediction_id: str | None = None) -> str:
    """Store ``content`` and its artifacts row; return the artifact id.

    ``artifact_dir`` is a directory (the file store) or any artifact store (e.g. S3).
    """
    storage_path, size, sha = artifact_storage.as_store(artifact_dir).save(content)
    artifact_id = new_id("art")
    conn.execute(schema.artifacts.insert().values(
        id=artifact_id, result_id=result_id, prediction_id=prediction_id, role=role,
        filename=filename, content_type=content_type, size=size, sha256=sha,
        storage_path=storage_path, created_at=utcnow(),
    ))
    return artifact_id


def add_result_artifacts(conn, artifact_dir: str, result_ids: list[str],
                         ligand: bool = False) -> None:
    """Give every result an archive and a structure (and a ligand structure if asked)."""
    for rid in result_ids:
        insert_artifact(conn, artifact_dir, content=b"PK\x05\x06" + rid.encode(),
                        role="archive", filename=f"{rid}.zip",
                        content_type="application/zip", result_id=rid)
        insert_artifact(conn, artifact_dir, content=f"data_{rid}\n".encode(),
                        role="structure", filename=f"{rid}.cif",
                        content_type="chemical/x-mmcif", result_id=rid)
        if ligand:
            insert_artifact(conn, artifact_dir, content=f"lig_{rid}\n".encode(),
                            role="ligand_structure", filename=f"{rid}_ligand.sdf",
                            content_type="chemical/x-mdl-sdfile", result_id=rid)


def make_link(app, org, *, pipeline_ids=(), prediction_ids=(), access_mode="public",
              allowed_emails=(), expires_in=timedelta(days=1),
              workspace_id: str | None = None) -> ShareLink:
    """Create a share link directly in the store (no endpoint), e.g. an expired one."""
    with get_engine(app).begin() as conn:
        return create_share_link(
            conn, organization_id=org.organization_id,
            workspace_id=workspace_id or org.workspace_id, access_mode=access_mode,
            allowed_emails=list(allowed_emails), pipeline_ids=list(pipeline_ids),
            prediction_ids=list(prediction_ids), expires_at=utcnow() + expires_in,
        )


def set_link(app, link_id: str, **values) -> None:
    """Overwrite columns of a share link (to expire or archive it in a test)."""
    with get_engine(app).begin() as conn:
        conn.execute(schema.share_links.update()
                     .where(schema.share_links.c.id == link_id).values(**values))


def add_workspace(app, org, *, archived_at: datetime | None = None) -> str:
    """Add a non-default workspace to ``org``; return its id."""
    workspace_id = new_id("ws")
    now = utcnow()
    with get_engine(app).begin() as conn:
        conn.execute(schema.workspaces.insert().values(
            id=workspace_id, organization_id=org.organization_id, name="Second",
            is_default=False, data_retention_unit="days", data_retention_value=7,
            created_at=now, updated_at=now, archived_at=archived_at,
        ))
    return workspace_id


def archive_workspace(app, workspace_id: str) -> None:
    """Mark a workspace archived directly in the database."""
    with get_engine(app).begin() as conn:
        conn.execute(schema.workspaces.update().where(schema.workspaces.c.id == workspace_id)
                     .values(archived_at=utcnow()))


def count_rows(app, table: sa.Table) -> int:
    """Return how many rows ``table`` holds."""
    with get_engine(app).connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
