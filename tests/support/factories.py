"""Test data for share-link tests: pipelines, results, predictions and artifact files.

Rows are inserted directly with SQLAlchemy (creating them is the compute engine's job, not
an endpoint's); artifact files are written through ``app.artifact_storage`` so downloads
serve real bytes. Pipeline inputs and progress, prediction inputs and outputs are the
official SDK's shapes (``app.synthetic.inputs``; outputs without the file objects the
service adds from artifacts), as the demo stores them.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import sqlalchemy as sa

from app import artifact_storage
from app.platform.db import get_engine
from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.share_links import ShareLink, create_share_link
from app.synthetic import inputs

KINDS = (
    "protein_design", "protein_redesign", "protein_sequence_redesign",
    "protein_library_screen", "small_molecule_design", "small_molecule_library_screen",
    "small_molecule_explore",
)
TARGET_SEQUENCE = "MKTAYIAKQRQISFVKSHFSRQ"
LIGAND_SMILES = "CC(=O)Oc1ccccc1C(=O)O"
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
            {"type": "protein", "chain_ids": ["A"], "value": TARGET_SEQUENCE,
             "modifications": []},
            {"type": "ligand_ccd", "chain_ids": ["B"], "value": "ATP"},
        ]
        row["metrics"] = _metrics(BINDER_METRICS, rng)
        if kind == "protein_sequence_redesign":
            row["variant"] = variant or ("generic" if index % 2 else "binder")
            if row["variant"] == "generic":
                row["metrics"] = _metrics(GENERIC_METRICS, rng)
    else:
        row["smiles"] = LIGAND_SMILES
        row["metrics"] = _metrics(SM_METRICS, rng)
        if index % 2 == 0 and kind != "small_molecule_explore":  # explore has no ADME
            row["adme"] = {"lipophilicity": 1.2, "permeability": 0.7,
                           "solubility": "high-confidence"}
    if kind.endswith(("library_screen", "explore")):
        row["external_id"] = f"ext-{index}"
    if index % 3 == 0:
        row["warnings"] = [{"code": "low_confidence", "message": "Low structure confidence"}]
    return row


def insert_pipeline(conn, workspace_id: str, kind: str = "protein_design", n_results: int = 0,
                    *, status: str = "succeeded", name: str | None = "Test pipeline",
                    batch: int = 5000, seed: int = 0, variant: str | None = None,
                    livemode: bool = True, artifact_dir: str | None = None,
                    ligand: bool = False) -> tuple[str, list[str]]:
    """Insert a pipeline with ``n_results`` results; return its id and result ids in order.

    ``variant`` makes every protein_sequence_redesign result a ``binder`` or ``generic``;
    ``livemode=False`` makes a test-mode pipeline. Its input and progress are SDK-shaped
    (``pipeline_input``, ``pipeline_progress``); a ``failed`` run has an error, a
    ``stopped`` one ``stopped_at``, a ``succeeded`` one ``completed_at``.

    With ``artifact_dir`` (the file store or any artifact store) every result gets the files
    the SDK's result models require: an ``archive`` and a ``structure`` (and a
    ``ligand_structure`` with ``ligand``), all results of the pipeline sharing one stored
    file per role (``shared_result_artifacts``); tests that check a result's own bytes use
    ``add_result_artifacts`` instead.
    """
    pipeline_id = new_id("pl")
    now = utcnow()
    conn.execute(schema.pipelines.insert().values(
        id=pipeline_id, workspace_id=workspace_id, kind=kind, name=name, status=status,
        input=pipeline_input(kind, pipeline_id, now), result_count=n_results,
        created_at=now, completed_at=now if status == "succeeded" else None,
        livemode=livemode, progress=pipeline_progress(kind, n_results),
        started_at=None if status == "pending" else now,
        stopped_at=now if status == "stopped" else None,
        error=({"code": "internal_error", "message": "The run failed."}
               if status == "failed" else None),
    ))
    rng = random.Random(seed)
    files = (shared_result_files(artifact_dir, pipeline_id, ligand)
             if artifact_dir is not None else None)
    ids: list[str] = []
    for start in range(0, n_results, batch):
        rows = [result_row(kind, pipeline_id, i, rng, variant)
                for i in range(start, min(start + batch, n_results))]
        conn.execute(schema.results.insert(), rows)
        if files and rows:
            conn.execute(schema.artifacts.insert(),
                         shared_result_artifacts(files, [row["id"] for row in rows]))
        ids.extend(row["id"] for row in rows)
    return pipeline_id, ids


def set_warnings(conn, codes: dict[str, list[str]]) -> None:
    """Give each result of ``codes`` (result id -> warning codes) those warnings, in that
    order (a message each; an empty list: none)."""
    conn.execute(schema.results.update().where(schema.results.c.id == sa.bindparam("rid"))
                 .values(warnings=sa.bindparam("warnings")),
                 [{"rid": rid, "warnings": [{"code": code, "message": f"About {code}."}
                                            for code in found] or None}
                  for rid, found in codes.items()])


# role -> (file name suffix, content type, bytes prefix) of a result's shared test files.
_RESULT_FILES = {
    "archive": (".zip", "application/zip", b"PK\x05\x06"),
    "structure": (".cif", "chemical/x-mmcif", b"data_"),
    "ligand_structure": ("_ligand.sdf", "chemical/x-mdl-sdfile", b"lig_"),
}


def shared_result_files(artifact_dir: str, pipeline_id: str,
                        ligand: bool = False) -> dict[str, tuple[str, int, str]]:
    """Store one file per result role for a whole pipeline; return role -> (path, size, sha).

    The store is content-addressed, so results sharing these files cost one file each.
    """
    store = artifact_storage.as_store(artifact_dir)
    roles = [role for role in _RESULT_FILES if ligand or role != "ligand_structure"]
    return {role: store.save(_RESULT_FILES[role][2] + pipeline_id.encode() + b"\n")
            for role in roles}


def shared_result_artifacts(files: dict[str, tuple[str, int, str]],
                            result_ids: list[str]) -> list[dict]:
    """Return ``artifacts`` rows giving every result of ``result_ids`` the shared ``files``."""
    now = utcnow()
    return [
        {"id": new_id("art"), "result_id": rid, "prediction_id": None, "role": role,
         "filename": f"{rid}{_RESULT_FILES[role][0]}", "content_type": _RESULT_FILES[role][1],
         "size": size, "sha256": sha, "storage_path": path, "created_at": now}
        for rid in result_ids for role, (path, size, sha) in files.items()
    ]


def pipeline_input(kind: str, pipeline_id: str, created: datetime) -> dict:
    """Return a small SDK-valid input of ``kind`` (target chain B for proteins, A else)."""
    target = [inputs.protein("B", TARGET_SEQUENCE)]
    if kind == "protein_design":
        return inputs.protein_design(target, binder_chain="A", min_length=60, max_length=90,
                                     modality="custom_protein", num_proteins=10)
    structure = inputs.input_file(pipeline_id, "template.cif", created)
    if kind == "protein_redesign":
        return inputs.protein_redesign(structure, binder_chain="A",
                                       designed_residues=[1, 2, 3, 4, 5],
                                       target_chains={"B": "protein"}, num_proteins=10)
    if kind == "protein_sequence_redesign":
        return inputs.sequence_redesign(structure, binder_chain="A", target_chain="B",
                                        num_proteins=10)
    if kind == "protein_library_screen":
        return inputs.protein_library_screen(
            target, inputs.input_file(pipeline_id, "library.fasta", created))
    molecule_target = inputs.molecule_target([inputs.protein("A", TARGET_SEQUENCE)])
    if kind == "small_molecule_design":
        return inputs.small_molecule_design(molecule_target, 10)
    if kind == "small_molecule_library_screen":
        return inputs.small_molecule_library_screen(
            molecule_target, inputs.input_file(pipeline_id, "library.csv", created))
    if kind == "small_molecule_explore":
        return inputs.small_molecule_explore(
            molecule_target, library_url="https://inputs.demo.invalid/library.csv",
            budget=10)
    raise ValueError(f"unknown kind {kind!r}")


def pipeline_progress(kind: str, n_results: int) -> dict:
    """Return the stored part of a run's progress: requested totals (all done), no failures."""
    if kind == "protein_library_screen":
        return {"total_proteins_to_screen": n_results, "num_proteins_failed": 0}
    if kind.startswith("protein"):
        return {"total_proteins_to_generate": n_results}
    if kind == "small_molecule_design":
        return {"total_molecules_to_generate": n_results}
    if kind == "small_molecule_library_screen":
        return {"total_molecules_to_screen": n_results, "num_molecules_failed": 0}
    return {"phase": "scoring", "total_molecules_to_score": n_results,
            "num_molecules_failed": 0}


def _sample_metrics(rng: random.Random) -> dict:
    names = ("complex_ipde", "complex_iplddt", "complex_pde", "complex_plddt", "iptm",
             "ligand_iptm", "protein_iptm", "ptm", "structure_confidence")
    return {name: round(rng.random(), 4) for name in names}


def prediction_record(application: str) -> tuple[dict, dict]:
    """Return SDK-shaped (input, output) of a small prediction of ``application``.

    A structure-and-binding output has no file objects: the service adds them from the
    prediction's artifacts (``structure``, ``structure_sample_<n>``, ``archive``).
    """
    if application == "adme":
        molecules = [{"id": "aspirin", "smiles": LIGAND_SMILES}]
        return {"molecules": molecules}, {"molecules": [{
            **molecules[0], "status": "succeeded",
            "adme": {"lipophilicity": 1.2, "permeability": 0.7,
                     "solubility": "high-confidence"}}]}
    rng = random.Random(0)
    samples = [_sample_metrics(rng) for _ in range(2)]
    return (
        {"entities": [inputs.protein("A", TARGET_SEQUENCE),
                      inputs.ligand_smiles("B", LIGAND_SMILES)],
         "binding": {"type": "ligand_protein_binding", "binder_chain_id": "B"},
         "num_samples": 2},
        {"best_sample": {"metrics": samples[0]},
         "all_sample_results": [{"metrics": m} for m in samples],
         "binding_metrics": {"type": "ligand_protein_binding_metrics",
                             "binding_confidence": 0.8, "optimization_score": 1.1}},
    )


def insert_prediction(conn, workspace_id: str, application: str = "structure_and_binding",
                      *, livemode: bool = True, artifact_dir: str | None = None) -> str:
    """Insert a succeeded prediction (test-mode with ``livemode=False``); return its id.

    With ``artifact_dir`` (the file store or any artifact store) a structure-and-binding
    prediction also gets the files its SDK output requires (``prediction_structures``):
    ``structure_sample_<n>`` for each sample of ``all_sample_results`` and ``structure``
    for the best one (sample 1), whose bytes are ``b"data_pred\n" + <prediction id>``.
    """
    prediction_id = new_id("pred")
    now = utcnow()
    record_input, record_output = prediction_record(application)
    conn.execute(schema.predictions.insert().values(
        id=prediction_id, workspace_id=workspace_id, application=application, name=None,
        status="succeeded", inputs=record_input, outputs=record_output,
        created_at=now, completed_at=now, livemode=livemode, started_at=now,
    ))
    if artifact_dir is not None and application == "structure_and_binding":
        samples = len(record_output["all_sample_results"])
        for role, filename, content in prediction_structures(prediction_id, samples):
            insert_artifact(conn, artifact_dir, content=content, role=role,
                            filename=filename, content_type="chemical/x-mmcif",
                            prediction_id=prediction_id)
    return prediction_id


def prediction_structures(prediction_id: str, samples: int) -> list[tuple[str, str, bytes]]:
    """Return (role, filename, bytes) of a structure prediction's files, best (1) first.

    Roles as ``app.synthetic.predictions`` names them: ``structure`` (the best sample,
    sample 1's bytes) and ``structure_sample_<n>``, n = 1 .. ``samples``.
    """
    def content(number: int) -> bytes:
        tag = b"data_pred\n" if number == 1 else f"data_pred_{number}\n".encode()
        return tag + prediction_id.encode()

    files = [("structure", "model_0.cif", content(1))]
    files += [(f"structure_sample_{n}", f"model_{n - 1}.cif", content(n))
              for n in range(1, samples + 1)]
    return files


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
