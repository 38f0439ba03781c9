"""Results whose structure files are the bytes a test chooses, shared through a link."""

from __future__ import annotations

from app.platform.db import get_engine
from tests.support import factories


def link_to_structures(app, org, structures: list[bytes]) -> tuple[str, list[str]]:
    """Return the base URL (``/share/<link>/pipelines/<pipeline>``) of a public link to a
    protein_design pipeline whose results have these structure files, and their ids."""
    directory = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id,
                                                     "protein_design", len(structures))
        for result_id, data in zip(ids, structures, strict=True):
            factories.insert_artifact(conn, directory, content=b"PK\x05\x06" + result_id.encode(),
                                      role="archive", filename=f"{result_id}.zip",
                                      content_type="application/zip", result_id=result_id)
            factories.insert_artifact(conn, directory, content=data, role="structure",
                                      filename=f"{result_id}.cif",
                                      content_type="chemical/x-mmcif", result_id=result_id)
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return f"/share/{link.id}/pipelines/{pipeline_id}", ids
