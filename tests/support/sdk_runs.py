"""Run records as the SDK declares them (``ShareLinkReadResponse.pipelines[]``), for tests
whose scripted API must send what the real one sends: ``run_record(kind, ...)``."""

from __future__ import annotations

# kind -> (pipeline, version, progress of a run with ``n`` results).
_SHAPES = {
    "protein_design": ("boltzprot", "1.0", lambda n: {
        "num_proteins_generated": n, "total_proteins_to_generate": n}),
    "protein_redesign": ("boltz-protein-redesign", "v2026-03-01", lambda n: {
        "num_proteins_generated": n, "total_proteins_to_generate": n}),
    "protein_sequence_redesign": ("boltz-protein-redesign", "v2026-07-14", lambda n: {
        "num_proteins_generated": n, "total_proteins_to_generate": n}),
    "protein_library_screen": ("boltzprot", "1.0", lambda n: {
        "num_proteins_failed": 0, "num_proteins_screened": n, "total_proteins_to_screen": n}),
    "small_molecule_design": ("boltzmol", "1.0", lambda n: {
        "num_molecules_generated": n, "total_molecules_to_generate": n}),
    "small_molecule_library_screen": ("boltzmol", "1.0", lambda n: {
        "num_molecules_failed": 0, "num_molecules_screened": n,
        "total_molecules_to_screen": n}),
    "small_molecule_explore": ("boltzmol", "1.0", lambda n: {
        "num_molecules_failed": 0, "num_molecules_scored": n, "phase": "scoring",
        "total_molecules_to_score": n}),
}


def run_record(kind: str, pipeline_id: str, count: int, *, status: str = "succeeded",
               latest_result_id: str | None = None, livemode: bool = True) -> dict:
    """Return the run record of a pipeline of ``kind`` with ``count`` results (input
    deleted: ``input`` null, which the SDK allows), as the share read sends it."""
    pipeline, version, progress = _SHAPES[kind]
    return {"id": pipeline_id, "created_at": "2026-11-20T09:00:00Z", "completed_at": None,
            "data_deleted_at": None, "engine": pipeline, "engine_version": version,
            "pipeline": pipeline, "pipeline_version": version, "error": None,
            "input": None, "livemode": livemode,
            "progress": {**progress(count), "latest_result_id": latest_result_id},
            "started_at": None, "status": status, "stopped_at": None,
            "workspace_id": "ws_fake"}


def share_read(link_id: str, pipelines: list[dict], predictions: list[dict] | None = None
               ) -> dict:
    """Return a share read (``ShareLinkReadResponse``) over these records."""
    return {"id": link_id, "created_at": "2026-11-20T08:00:00Z",
            "expires_at": "2099-01-01T00:00:00Z", "workspace_id": "ws_fake",
            "pipelines": pipelines, "predictions": predictions or []}
