"""Hostile molecules and sequences driven through every chemistry and export route.

``seed`` stores the corpus of ``hostile_molecules`` as the SMILES of a small-molecule
library screen's results, and hostile sequences (a record separator and ``>`` inside,
100,000 residues, characters no alphabet has) as a protein library screen's designed
chains, behind one public link. ``drive`` then asks a served viewer for every route that
does chemistry or writes records of them: the results table (with its depictions), each
result page, every depiction image on those pages, a substructure view, explore.json and
each export format; it returns every answer's status and the slowest seconds per route.
"""

from __future__ import annotations

import random
import re
import time
from collections import defaultdict

import httpx

from app.platform.db import get_engine
from app.store import schema
from tests.support import factories
from tests.support.hostile_molecules import CORPUS

SEQUENCES = {
    "fake FASTA record": "MKV\n>injected record\nACDE",
    "100,000 residues": "ACDEFGHIKLMNPQRSTVWY" * 5000,
    "no alphabet": "\u202e<script>alert(1)</script>\x00$$$$",
    "empty": "",
}
_DEPICTION = re.compile(r'src="(/share/[^"]+/depictions/[^"]+\.svg[^"]*)"')


def seed(app, org) -> tuple[str, str, str]:
    """Store the hostile pipelines and a public link; return (link, molecules, proteins)."""
    rng = random.Random(7)
    artifact_dir = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        molecules, _ = factories.insert_pipeline(
            conn, org.workspace_id, "small_molecule_library_screen", 0,
            artifact_dir=app.config["ARTIFACT_DIR"])
        proteins, _ = factories.insert_pipeline(
            conn, org.workspace_id, "protein_library_screen", 0,
            artifact_dir=app.config["ARTIFACT_DIR"])
        rows = []
        for index, (name, smiles) in enumerate(CORPUS.items()):
            row = factories.result_row("small_molecule_library_screen", molecules, index, rng)
            rows.append({**row, "smiles": smiles, "external_id": name})
        for index, (name, sequence) in enumerate(SEQUENCES.items()):
            row = factories.result_row("protein_library_screen", proteins, index, rng)
            row["entities"][0]["value"] = sequence
            rows.append({**row, "external_id": name})
        conn.execute(schema.results.insert(), rows)
        for pipeline_id, count in ((molecules, len(CORPUS)), (proteins, len(SEQUENCES))):
            conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == pipeline_id)
                         .values(result_count=count))
        factories.add_result_artifacts(conn, artifact_dir, [r["id"] for r in rows])
    link = factories.make_link(app, org, pipeline_ids=[molecules, proteins])
    return link.id, molecules, proteins


def result_ids(app, pipeline_id: str) -> list[str]:
    """Return the ids of a pipeline's results."""
    with get_engine(app).connect() as conn:
        results = schema.results
        return [row.id for row in conn.execute(
            results.select().where(results.c.pipeline_id == pipeline_id))]


def drive(base: str, link: str, molecules: str, proteins: str, molecule_ids: list[str],
          protein_ids: list[str]) -> tuple[dict[str, float], list[tuple[str, int]]]:
    """Ask every chemistry and export route; return slowest seconds per route, and
    every (route, status) that was not a 200."""
    slowest: dict[str, float] = defaultdict(float)
    failures: list[tuple[str, int]] = []
    with httpx.Client(base_url=base, timeout=120) as http:
        def get(route: str, path: str) -> str:
            started = time.perf_counter()
            answer = http.get(path)
            slowest[route] = max(slowest[route], time.perf_counter() - started)
            if answer.status_code != 200:
                failures.append((route, answer.status_code))
            return answer.text

        pages = [get("results table", f"/share/{link}/pipelines/{molecules}")]
        for result_id in molecule_ids:
            pages.append(get("result page", f"/share/{link}/pipelines/{molecules}/results/"
                                            f"{result_id}"))
        for page in pages:
            for image in set(_DEPICTION.findall(page)):
                get("depiction image", image.replace("&amp;", "&"))
        get("substructure view", f"/share/{link}/pipelines/{molecules}?smarts=C1CCCCC1")
        get("explore.json", f"/share/{link}/pipelines/{molecules}/explore.json"
                            "?sort=-binding_confidence&smarts=c1ccccc1")
        for extension in ("csv", "json", "sdf", "zip"):
            get(f"export.{extension}", f"/share/{link}/pipelines/{molecules}/export.{extension}")
        get("results table", f"/share/{link}/pipelines/{proteins}")
        for result_id in protein_ids:
            get("result page", f"/share/{link}/pipelines/{proteins}/results/{result_id}")
        for extension in ("csv", "json", "fasta", "zip"):
            get(f"export.{extension}", f"/share/{link}/pipelines/{proteins}/export.{extension}")
    return dict(slowest), failures
