"""Result records the engine wrote wrongly, stored beside healthy ones behind one link.

``CORPUS`` names each hostile record by what is wrong with it and gives the fields that
replace those of a healthy row of its kind (``factories.result_row``). ``seed`` stores,
for a protein design and a small-molecule library screen, healthy results around the
hostile ones, their artifact files, and a public link over both. ``routes`` lists every
viewer route that reads the records: the table (API order and an index view), each
result page, explore.json and every export.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.platform.db import get_engine
from app.store import schema
from tests.support import factories

PROTEINS = "protein_design"
MOLECULES = "small_molecule_library_screen"
HEALTHY_PER_PIPELINE = 3
# A number JSON can write and no float can hold.
HUGE = 10 ** 400

# name -> (kind, fields replacing the healthy row's). Ids are spelled so that they sort
# among the healthy ones (time-ordered ids start with "res_0").
CORPUS: dict[str, tuple[str, dict]] = {
    "huge metric": (PROTEINS, {"metrics": {"binding_confidence": HUGE, "iptm": 0.5}}),
    "metric text": (PROTEINS, {"metrics": {"binding_confidence": "high", "iptm": 0.5}}),
    "entities a dict": (PROTEINS, {"entities": {"type": "protein", "value": "MKV"}}),
    "entity value a number": (PROTEINS, {"entities": [
        {"type": "protein", "chain_ids": ["A"], "value": 12345, "modifications": []}]}),
    "metrics a list": (PROTEINS, {"metrics": [0.1, 0.2]}),
    "warnings a string": (PROTEINS, {"warnings": "low confidence"}),
    "non-ASCII id": (PROTEINS, {"id": "res_\u00e901"}),
    "id outside the pattern": (PROTEINS, {"id": "res_02.x"}),
    "huge molecule metric": (MOLECULES, {"metrics": {"binding_confidence": HUGE}}),
    "solubility a dict": (MOLECULES, {"adme": {"lipophilicity": 1.0, "permeability": HUGE,
                                              "solubility": {"class": "high"}}}),
    "smiles a number": (MOLECULES, {"smiles": 42}),
    "warning without message": (MOLECULES, {"warnings": [{"code": 3}]}),
}


@dataclass(frozen=True)
class HostileRecords:
    """The link and its two pipelines, with their result ids by corpus name."""

    link: str
    proteins: str
    molecules: str
    ids: dict[str, str]
    healthy: dict[str, list[str]]


def seed(app, org) -> HostileRecords:
    """Store the corpus beside healthy results of both kinds; return the link over them."""
    rng = random.Random(3)
    files = app.config["ARTIFACT_DIR"]
    ids: dict[str, str] = {}
    healthy: dict[str, list[str]] = {}
    with get_engine(app).begin() as conn:
        pipelines = {kind: factories.insert_pipeline(conn, org.workspace_id, kind,
                                                     HEALTHY_PER_PIPELINE, artifact_dir=files)
                     for kind in (PROTEINS, MOLECULES)}
        rows = []
        for index, (name, (kind, fields)) in enumerate(CORPUS.items()):
            row = {**factories.result_row(kind, pipelines[kind][0], index, rng), **fields}
            rows.append(row)
            ids[name] = row["id"]
        conn.execute(schema.results.insert(), rows)
        factories.add_result_artifacts(conn, files, [row["id"] for row in rows])
        for kind, (pipeline_id, results) in pipelines.items():
            healthy[kind] = results
            total = len(results) + sum(1 for k, _ in CORPUS.values() if k == kind)
            conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == pipeline_id)
                         .values(result_count=total))
    link = factories.make_link(app, org, pipeline_ids=[pipelines[PROTEINS][0],
                                                       pipelines[MOLECULES][0]])
    return HostileRecords(link.id, pipelines[PROTEINS][0], pipelines[MOLECULES][0], ids,
                          healthy)


def routes(records: HostileRecords) -> list[str]:
    """Return every viewer route that reads the records of both pipelines."""
    answer = []
    for kind, pipeline_id, formats in (
            (PROTEINS, records.proteins, ("csv", "json", "fasta", "zip")),
            (MOLECULES, records.molecules, ("csv", "json", "sdf", "zip"))):
        base = f"/share/{records.link}/pipelines/{pipeline_id}"
        answer += [base, f"{base}?sort=-binding_confidence", f"{base}/explore.json?sort=id"]
        answer += [f"{base}/export.{extension}" for extension in formats]
        answer += [f"{base}/results/{result_id}" for result_id in records.healthy[kind]]
    return answer
