"""Structural alerts of ``alerts=none|any``: PAINS A, B and C (RDKit's FilterCatalog).

PAINS (Baell and Holloway 2010) are the substructures of compounds that show up as hits in
many assays for the wrong reason (redox cycling, metal chelation, aggregation, reactive
Michael acceptors); a chemist removes them before ordering. The filter answers, per
distinct SMILES, one of ``FLAGGED`` (some PAINS A/B/C pattern matches), ``CLEAN`` (none
does) or ``UNKNOWN`` (RDKit cannot read the SMILES, or its check overran the budget):
an unknown molecule is in neither ``alerts=none`` nor ``alerts=any``, because neither can
be vouched for.

The check (about 4 ms a molecule: 480 patterns) runs in the chemistry child process under
the same hard budget as substructure matching (``budget``): ``ITEM_SECONDS`` a molecule,
``TOTAL_SECONDS`` a request. Answers are kept per SMILES in a bounded cache of this
process, so an index that grows (or a second query) only checks the molecules it has not
seen; molecules not reached within the budget stay unknown for that answer and are
checked again by the next one that misses its cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
from rdkit.rdBase import BlockLogs

from app.viewer.chem import budget
from app.viewer.chem.cache import BoundedCache

FLAGGED, CLEAN, UNKNOWN = 1, 0, -1
# Same budget as a whole-set substructure search (``substructure``).
ITEM_SECONDS = 2.0
TOTAL_SECONDS = 60.0
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
# One small entry per distinct molecule: 200,000 covers the largest index we serve twice.
_known: BoundedCache[int] = BoundedCache(200_000)


@lru_cache(maxsize=1)
def _catalog() -> FilterCatalog:
    params = FilterCatalogParams()
    for catalog in (FilterCatalogParams.FilterCatalogs.PAINS_A,
                    FilterCatalogParams.FilterCatalogs.PAINS_B,
                    FilterCatalogParams.FilterCatalogs.PAINS_C):
        params.AddCatalog(catalog)
    return FilterCatalog(params)


def pains_now(smiles: str) -> int:
    """Return ``FLAGGED``, ``CLEAN`` or ``UNKNOWN`` for ``smiles``, computed here and now."""
    if not smiles or len(smiles) > MAX_SMILES:
        return UNKNOWN
    with BlockLogs():  # an unreadable SMILES of the set is unknown, not an error line
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return UNKNOWN
    return FLAGGED if _catalog().HasMatch(mol) else CLEAN


def first_alert(smiles: str) -> str | None:
    """Return the name of the first PAINS pattern ``smiles`` matches (e.g. ``catechol_A``)."""
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles or "") if len(smiles or "") <= MAX_SMILES else None
    entry = _catalog().GetFirstMatch(mol) if mol is not None else None
    return entry.GetDescription() if entry is not None else None


def uncached(smiles: Sequence[str]) -> bool:
    """Whether some of ``smiles`` has no answer in this process yet (work to do)."""
    return any(_known.get(text) is None for text in smiles)


def pains_flags(smiles: Sequence[str]) -> list[int]:
    """Return the answer of each SMILES: cached ones at once, the rest in the budgeted child."""
    answers = [_known.get(text) for text in smiles]
    missing = [i for i, answer in enumerate(answers) if answer is None]
    if missing:
        found = budget.worker("alerts").run_each(
            "pains", [smiles[i] for i in missing], item_seconds=ITEM_SECONDS,
            total_seconds=TOTAL_SECONDS)
        for index, answer in zip(missing, found, strict=True):
            if answer is budget.OVERRUN:
                answers[index] = UNKNOWN  # not kept: another request may finish it
                continue
            answers[index] = answer
            _known.put(smiles[index], answer)
    return [UNKNOWN if a is None else a for a in answers]


def clear_cache() -> None:
    """Forget every answer (tests)."""
    _known.clear()
