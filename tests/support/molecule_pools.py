"""Molecule pools for the whole-set chemistry tests: both small-molecule demo sets.

``pool_pipeline`` inserts a pipeline whose results cycle through one pool (some molecules
twice, so per-distinct-SMILES answers are mapped back to every row) behind a public link.
"""

from __future__ import annotations

import sqlalchemy as sa

from app.platform.db import get_engine
from app.store import schema
from app.synthetic.chemistry import LIBRARY, series_smiles
from app.viewer.chem import scaffolds, similarity
from tests.support import factories

UNPARSABLE = "C1CC(=O"
ACYCLIC = "CCCCCCO"  # hexanol: no ring, the empty scaffold
POOLS = {
    "small_molecule_library_screen": [s for _n, s in LIBRARY] + [UNPARSABLE, ACYCLIC],
    "small_molecule_design": series_smiles(),
}


def pool_pipeline(app, org, kind: str) -> tuple[str, dict[str, str]]:
    """Insert a ``kind`` pipeline over ``POOLS[kind]``; return its results path and each
    result id's SMILES."""
    pool = POOLS[kind]
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, kind, len(pool) + 7, seed=5,
            artifact_dir=app.config["ARTIFACT_DIR"])
        for index, result_id in enumerate(ids):
            conn.execute(sa.update(schema.results).where(schema.results.c.id == result_id)
                         .values(smiles=pool[index % len(pool)]))
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    scaffolds.clear_cache()
    similarity.clear_cache()
    return f"/share/{link.id}/pipelines/{pipeline_id}", {
        rid: pool[i % len(pool)] for i, rid in enumerate(ids)}
