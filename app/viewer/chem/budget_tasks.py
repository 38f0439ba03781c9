"""The tasks a budgeted chemistry child runs (``budget``): imported once by its forkserver.

Each task takes one item and the task's fixed arguments, and returns something small and
picklable: a match answer, an SVG text, the alerts of a molecule. ``epitope`` is not
chemistry: the epitope scan's reading of a structure file (``epitope.scan``), run here so
that its CPU work never holds a worker's GIL.
"""

from __future__ import annotations

from app.viewer.chem import alerts, depict, index_chemistry, scaffolds, similarity, substructure
from app.viewer.epitope import contacts


def contains(smiles: str, query_text: str) -> bool:
    """Whether the molecule of ``smiles`` holds the query (parsed once, cached)."""
    return substructure.match_each([smiles], substructure.parse_query(query_text))[0]


def draw(item: tuple[str, str | None, str]) -> str | None:
    """The SVG of ``(smiles, highlight, size)``, or None when it cannot be drawn."""
    smiles, highlight, size = item
    return depict.draw_now(smiles, highlight, size)


def structural_alerts(smiles: str) -> tuple[tuple[str, str | None], ...] | None:
    """The PAINS and Brenk alerts of the molecule of ``smiles`` (``alerts``: name, SMARTS),
    or None when RDKit cannot read it."""
    return alerts.alerts_now(smiles)


TASKS = {"contains": contains, "draw": draw, "alerts": structural_alerts,
         "scaffold": scaffolds.scaffold_now, "fingerprint": similarity.fingerprint_now,
         "molecule": index_chemistry.molecule_now, "screen": index_chemistry.screen_now,
         "confirm": substructure.confirm_one,
         "confirm_block": substructure.confirm_block, "query_pattern": substructure.query_pattern,
         "epitope": contacts.read_item}
