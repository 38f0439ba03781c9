"""Synthetic runs in the API's store: a workspace's pipelines, results, files and predictions.

``build_catalog`` builds every pipeline kind and the two predictions (``PIPELINE_PLAN``)
from this package's builders with fixed random seeds, their files written to an artifact
store first; ``insert_catalog`` writes the rows in the caller's transaction (an aborted
run leaves only unreferenced files behind, never rows pointing at missing files). Test
mode (``test_mode``) and the demo link (``app.demo.seed``) both use it. ``count`` makes
every pipeline hold that many results; ``results=N`` makes ``protein_design`` and
``small_molecule_library_screen`` hold N results each (``scale``), inserted chunk by
chunk. Inputs, progress and prediction outputs are the official SDK's shapes
(``inputs``); prediction outputs are stored without their file objects, which the service
adds from the artifacts when it answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app import artifact_storage
from app.platform.ids import new_id
from app.store import catalog
from app.synthetic import molecule_pipelines, predictions, protein_pipelines, scale
from app.synthetic.archives import build_zip, metrics_json
from app.synthetic.drafts import PipelineDraft
from app.synthetic.pae import pae_npz

# kind -> (builder, days before now the run was created, hours it ran)
PIPELINE_PLAN = {
    "protein_design": (protein_pipelines.protein_design, 5.6, 9.0),
    "protein_redesign": (protein_pipelines.protein_redesign, 4.2, 2.5),
    "protein_sequence_redesign": (protein_pipelines.protein_sequence_redesign, 3.1, 1.5),
    "protein_library_screen": (protein_pipelines.protein_library_screen, 2.3, 4.0),
    "small_molecule_design": (molecule_pipelines.small_molecule_design, 1.4, 3.0),
    "small_molecule_library_screen": (molecule_pipelines.small_molecule_library_screen,
                                      0.8, 2.0),
    "small_molecule_explore": (molecule_pipelines.small_molecule_explore, 0.5, 2.5),
}
# Builder arguments of the demo's own sizes only (not with ``count``, as test mode builds):
# the IL-6 design asked for 300 binders and was stopped at 260.
DEMO_ONLY = {"protein_design": {"requested": 300}}
# How long a run waited in the queue before it started, at most.
QUEUE_WAIT = timedelta(seconds=40)


def _ms(value: datetime) -> int:
    return int(value.replace(tzinfo=UTC).timestamp() * 1000)


@dataclass(frozen=True)
class Catalog:
    """Built demo rows (files already stored), ready for ``insert_catalog``."""

    pipeline_ids: dict[str, str]  # kind -> id
    prediction_ids: dict[str, str]  # application -> id
    pipelines: list[catalog.PipelineRow]
    predictions: list[catalog.PredictionRow]
    results: list[catalog.NewResult]
    artifacts: list[catalog.NewArtifact]
    # Scaled pipelines' rows, made lazily chunk by chunk (``scale.Chunk``).
    streams: tuple[Iterator[scale.Chunk], ...] = ()


def build_catalog(workspace_id: str, store, now: datetime, *,
                  livemode: bool = True, count: int | None = None,
                  results: int | None = None) -> Catalog:
    """Build the seven pipelines and two predictions of a workspace and store their files.

    ``store`` is an artifact store (``app.artifact_storage``) or, for the file store, its
    directory.

    ``count`` caps each pipeline's results (None: the builders' full demo sizes);
    ``livemode=False`` makes them test-mode rows (``app.synthetic.test_mode``). Nothing is written
    to the database: building takes seconds, so callers that must claim the right to
    insert (test-mode seeding) build first and hold no lock meanwhile. ``results=N``
    gives the ``scale.SCALED_KINDS`` N results each, as streams of rows made while
    ``insert_catalog`` reads them (their shared files are stored here, up front).
    """
    # S3 uploads run in parallel (one round trip each would add seconds); every file is
    # stored when the block ends, before any row naming it can be inserted.
    with artifact_storage.batched(artifact_storage.as_store(store)) as store:
        pipeline_ids, pipelines, rows, artifacts, streams = {}, [], [], [], []
        for kind, (builder, days_ago, hours) in PIPELINE_PLAN.items():
            start = now - timedelta(days=days_ago)
            end = start + timedelta(hours=hours)
            pipeline_id = new_id("pipe", at_ms=_ms(start))
            if results is not None and kind in scale.SCALED_KINDS:
                draft, stream = scale.scaled(kind, pipeline_id, start, end, results, store)
                streams.append(stream)
                result_count = results
            else:
                sized = DEMO_ONLY.get(kind, {}) if count is None else {"count": count}
                draft: PipelineDraft = builder(pipeline_id, start, end, **sized)
                result_count = len(draft.results)
            pipeline_ids[kind] = pipeline_id
            pipelines.append(_pipeline_row(draft, pipeline_id, workspace_id, result_count,
                                           livemode))
            for result_draft in draft.results:
                rows.append(result_draft.result)
                artifacts += _result_artifacts(result_draft, store)
        prediction_ids, predictions_, prediction_files = _build_predictions(
            workspace_id, store, now, livemode)
    return Catalog(pipeline_ids, prediction_ids, pipelines, predictions_, rows,
                   artifacts + prediction_files, tuple(streams))


def _pipeline_row(draft: PipelineDraft, pipeline_id: str, workspace_id: str,
                  result_count: int, livemode: bool) -> catalog.PipelineRow:
    """Return the row of a built pipeline: SDK input and progress, its run's times.

    A run starts after a short wait in the queue (before its first result); a stopped
    run has ``stopped_at`` where a finished one has ``completed_at``.
    """
    start, end = draft.created_at, draft.completed_at
    step = (end - start) / (result_count + 1)
    stopped = draft.status == "stopped"
    return catalog.PipelineRow(
        id=pipeline_id, workspace_id=workspace_id, kind=draft.kind, name=draft.name,
        status=draft.status, input=draft.input, result_count=result_count,
        created_at=start, completed_at=None if stopped else end, livemode=livemode,
        progress=draft.progress, started_at=start + min(QUEUE_WAIT, step / 2),
        stopped_at=end if stopped else None, error=None,
    )


def insert_catalog(conn, data: Catalog) -> None:
    """Insert built rows in a handful of statements (the caller owns the transaction).

    Scaled pipelines add two statements per chunk of their rows (``COPY`` on PostgreSQL),
    their rows already serialised (``scale.Chunk``).
    """
    catalog.insert_pipelines(conn, data.pipelines)
    catalog.insert_predictions(conn, data.predictions)
    catalog.insert_results(conn, data.results)
    catalog.insert_artifacts(conn, data.artifacts)
    for stream in data.streams:
        for results, artifacts in scale.prefetched(stream):
            catalog.insert_serialised(conn, "results", results)
            catalog.insert_serialised(conn, "artifacts", artifacts)


def _archive_record(result: catalog.NewResult) -> dict:
    """Return what metrics.json holds: the result's scientific content."""
    record = {"id": result.id, "metrics": result.metrics}
    for field in ("variant", "entities", "smiles", "adme", "external_id", "warnings"):
        value = getattr(result, field)
        if value is not None:
            record[field] = value
    return record


def _result_artifacts(draft, store) -> list[catalog.NewArtifact]:
    """Store a result's structure, optional ligand SDF and archive; return their rows.

    The archive holds the structure, the ligand SDF if any, ``pae.npz`` and metrics.json.
    """
    result = draft.result
    cif = draft.structure_cif.encode()
    files = [("structure", f"{result.id}.cif", "chemical/x-mmcif", cif)]
    members = {f"{result.id}.cif": cif}
    if draft.ligand_sdf is not None:
        sdf = draft.ligand_sdf.encode()
        files.append(("ligand_structure", f"{result.id}_ligand.sdf", "chemical/x-mdl-sdfile",
                      sdf))
        members[f"{result.id}_ligand.sdf"] = sdf
    members["pae.npz"] = pae_npz(draft.structure_cif)
    members["metrics.json"] = metrics_json(_archive_record(result))
    files.append(("archive", f"{result.id}.zip", "application/zip",
                  build_zip(members, result.created_at)))
    return [_store(store, role, name, ctype, data, result.created_at,
                   result_id=result.id) for role, name, ctype, data in files]


def _store(store, role, filename, content_type, data, created_at, **owner):
    storage_path, size, sha256 = store.save(data)
    return catalog.NewArtifact(
        id=new_id("art", at_ms=_ms(created_at)), role=role, filename=filename,
        content_type=content_type, size=size, sha256=sha256, storage_path=storage_path,
        created_at=created_at, **owner,
    )


def _build_predictions(workspace_id: str, store, now: datetime,
                       livemode: bool) -> tuple[dict, list, list]:
    """Build the two predictions and store their files; return ids, rows, artifact rows."""
    ids, rows, artifacts = {}, [], []
    plan = (("structure_and_binding", "BRD4 BD1 with (+)-JQ1", 2.6, 0.3),
            ("adme", "ADME panel: BET inhibitors and reference drugs", 1.1, 0.2))
    for application, name, days_ago, hours in plan:
        created = now - timedelta(days=days_ago)
        completed = created + timedelta(hours=hours)
        prediction_id = new_id("pred", at_ms=_ms(created))
        if application == "adme":
            inputs, outputs, files = predictions.adme(prediction_id)
        else:
            inputs, outputs, files = predictions.structure_and_binding(prediction_id, completed)
        ids[application] = prediction_id
        rows.append(catalog.PredictionRow(
            id=prediction_id, workspace_id=workspace_id, application=application, name=name,
            status="succeeded", inputs=inputs, outputs=outputs, created_at=created,
            completed_at=completed, livemode=livemode, started_at=created + QUEUE_WAIT,
            error=None,
        ))
        artifacts += [_store(store, role, filename, ctype, data, completed,
                             prediction_id=prediction_id)
                      for role, filename, ctype, data in files]
    return ids, rows, artifacts
