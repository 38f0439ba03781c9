"""Run records whose stored ``progress`` and ``error`` are not what the SDK declares.

``seed`` stores, behind one public link, a healthy protein design beside runs whose JSON
columns the engine wrote wrongly (a list where an object belongs, a count that is text,
an error that is a string), and a prediction with a malformed error. Tests read the link
through the API and the viewer: only those runs may look different.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.platform.db import get_engine
from app.store import schema
from tests.support import factories

# Stored (progress, error) of the hostile pipelines, by what is wrong with them.
PIPELINES = {
    "lists": ([1, 2], ["failed"]),
    "bad fields": ({"total_proteins_to_generate": [3], "num_proteins_failed": "two"},
                   {"code": 7, "message": "The run failed.", "details": {"step": 2}}),
    "text": ("running", "it broke"),
}
PREDICTION_ERROR = ["not", "an", "error"]


@dataclass(frozen=True)
class HostileRuns:
    """A public link over a healthy run and the hostile ones (ids by ``PIPELINES`` key)."""

    link: str
    healthy: str
    healthy_results: list[str]
    hostile: dict[str, str]
    prediction: str


def seed(app, org) -> HostileRuns:
    """Store the runs of ``PIPELINES`` and a public link over them, the healthy run first."""
    files = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        healthy, results = factories.insert_pipeline(conn, org.workspace_id, "protein_design", 3,
                                                     artifact_dir=files)
        hostile = {}
        for name, (progress, error) in PIPELINES.items():
            pipeline_id, _ = factories.insert_pipeline(conn, org.workspace_id, "protein_design",
                                                       2, status="failed", artifact_dir=files)
            conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == pipeline_id)
                         .values(progress=progress, error=error))
            hostile[name] = pipeline_id
        prediction = factories.insert_prediction(conn, org.workspace_id, "adme")
        conn.execute(schema.predictions.update().where(schema.predictions.c.id == prediction)
                     .values(error=PREDICTION_ERROR))
    link = factories.make_link(app, org, pipeline_ids=[healthy, *hostile.values()],
                               prediction_ids=[prediction])
    return HostileRuns(link.id, healthy, results, hostile, prediction)
