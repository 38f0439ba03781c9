"""The tasks a budgeted chemistry child runs (``budget``): imported once by its forkserver.

Each task takes one item and the task's fixed arguments, and returns something small and
picklable: a match answer, an SVG text, a PAINS answer.
"""

from __future__ import annotations

from app.viewer.chem import alerts, depict, scaffolds, similarity, substructure


def contains(smiles: str, query_text: str) -> bool:
    """Whether the molecule of ``smiles`` holds the query (parsed once, cached)."""
    return substructure.match_each([smiles], substructure.parse_query(query_text))[0]


def draw(item: tuple[str, str | None, str]) -> str | None:
    """The SVG of ``(smiles, highlight, size)``, or None when it cannot be drawn."""
    smiles, highlight, size = item
    return depict.draw_now(smiles, highlight, size)


def pains(smiles: str) -> int:
    """Whether the molecule of ``smiles`` has a PAINS alert (``alerts``: flagged, clean,
    unknown)."""
    return alerts.pains_now(smiles)


TASKS = {"contains": contains, "draw": draw, "pains": pains,
         "scaffold": scaffolds.scaffold_now, "fingerprint": similarity.fingerprint_now}
