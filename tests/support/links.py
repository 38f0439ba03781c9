"""A public link over one pipeline of each kind (with real artifact files) and two
predictions, and pointing a viewer at an API over HTTP."""

from __future__ import annotations

from dataclasses import dataclass

from app.platform.db import get_engine
from app.viewer.core import api_client
from tests.support import factories

KINDS = factories.KINDS


@dataclass
class Shared:
    """What the ``shared`` fixture created: the link id and the ids behind it."""

    link_id: str
    pipelines: dict[str, str]
    results: dict[str, list[str]]
    predictions: list[str]
    org: object

    def url(self, suffix: str = "") -> str:
        """Return the viewer path of the link, plus ``suffix``."""
        return f"/share/{self.link_id}{suffix}"


def seed_link(app, org, counts: dict[str, int] | None = None) -> Shared:
    """Insert a pipeline per kind (with artifacts), two predictions and a public link."""
    counts = counts or {}
    artifact_dir = app.config["ARTIFACT_DIR"]
    pipelines, results = {}, {}
    with get_engine(app).begin() as conn:
        for index, kind in enumerate(KINDS):
            pipeline_id, ids = factories.insert_pipeline(
                conn, org.workspace_id, kind, counts.get(kind, 4), seed=index,
                name=None if kind == "protein_redesign" else f"{kind} run",
            )
            factories.add_result_artifacts(conn, artifact_dir, ids,
                                           ligand=kind.startswith("small"))
            pipelines[kind], results[kind] = pipeline_id, ids
        predictions = []
        for application in ("structure_and_binding", "adme"):
            # A structure prediction's files: ``structure`` (bytes b"data_pred\n" + its
            # id) and one ``structure_sample_<n>`` per sample, as its SDK output needs.
            prediction_id = factories.insert_prediction(conn, org.workspace_id, application,
                                                        artifact_dir=artifact_dir)
            predictions.append(prediction_id)
    link = factories.make_link(app, org, pipeline_ids=list(pipelines.values()),
                               prediction_ids=predictions)
    return Shared(link.id, pipelines, results, predictions, org)


def point_viewer_at(app, url: str, timeout: float = 10.0) -> None:
    """Make the viewer of ``app`` read the API at ``url`` over HTTP from now on."""
    app.extensions["compute_api"] = api_client.remote(url, timeout)
