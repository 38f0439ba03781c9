"""Structural alerts per molecule: PAINS A, B, C and Brenk (RDKit's FilterCatalog).

PAINS (Baell and Holloway 2010) are substructures of compounds that show up as hits in many
assays for the wrong reason (redox cycling, metal chelation, aggregation, reactive Michael
acceptors); Brenk (Brenk et al. 2008) lists groups a chemist avoids for toxicity, reactivity
or poor pharmacokinetics (nitro groups, thiocarbonyls, Michael acceptors...). Each alert is
named as RDKit's catalog names it (``ene_rhod_A(235)``, ``Michael_acceptor_1``); its family
is ``pains`` or ``brenk``.

Per distinct SMILES the answer is the tuple of alert names it matches (catalog order: PAINS
first), ``()`` when none does, or ``None`` (unknown) when RDKit cannot read the SMILES or its
check overran the budget: an unknown molecule is in neither ``alerts=none`` nor
``alerts=any``, because neither can be vouched for.

The check (585 patterns a molecule) runs in the chemistry child process under
the same hard budget as substructure matching (``budget``): ``ITEM_SECONDS`` a molecule,
``TOTAL_SECONDS`` a request. Answers are kept per SMILES in a bounded cache of this process,
so an index that grows (or a second query) only checks the molecules it has not seen;
molecules not reached within the budget stay unknown for that answer and are checked again
by the next one that misses its cache. The SMARTS of each alert (for the highlighted
depiction) comes back from the child with the first molecule it matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
from rdkit.rdBase import BlockLogs

from app.viewer.runtime import budget
from app.viewer.runtime.cache import BoundedCache

FAMILIES = ("pains", "brenk")
FAMILY_LABELS = {"pains": "PAINS", "brenk": "Brenk"}
_CATALOGS = (("pains", FilterCatalogParams.FilterCatalogs.PAINS_A),
             ("pains", FilterCatalogParams.FilterCatalogs.PAINS_B),
             ("pains", FilterCatalogParams.FilterCatalogs.PAINS_C),
             ("brenk", FilterCatalogParams.FilterCatalogs.BRENK))
# Same budget as a whole-set substructure search (``substructure``).
ITEM_SECONDS = 2.0
TOTAL_SECONDS = 60.0
PAGE_SECONDS = 5.0  # a page's own molecules (badges, a result page): never a long wait
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
_UNREADABLE = ("\0",)  # cached "unknown for good": RDKit cannot read it
# One small entry per distinct molecule: 200,000 covers the largest index we serve twice.
_known: BoundedCache[tuple[str, ...]] = BoundedCache(200_000)
_smarts: dict[str, str] = {}  # alert name -> its SMARTS, as the child reported it


@dataclass(frozen=True)
class Alert:
    """One alert a molecule has: its catalog name, family and SMARTS (None if unknown)."""

    name: str
    family: str
    smarts: str | None

    @property
    def family_label(self) -> str:
        """``PAINS`` or ``Brenk``."""
        return FAMILY_LABELS[self.family]


@lru_cache(maxsize=1)
def _catalog() -> FilterCatalog:
    params = FilterCatalogParams()
    for _family, catalog in _CATALOGS:
        params.AddCatalog(catalog)
    return FilterCatalog(params)


@lru_cache(maxsize=1)
def families() -> dict[str, str]:
    """Return every alert name of the catalog and its family (``pains`` or ``brenk``)."""
    catalog = _catalog()
    out = {}
    for index in range(catalog.GetNumEntries()):
        entry = catalog.GetEntryWithIdx(index)
        out[entry.GetDescription()] = ("brenk" if entry.GetProp("FilterSet") == "Brenk"
                                       else "pains")
    return out


def _pattern_smarts(entry, mol: Chem.Mol) -> str | None:
    for found in entry.GetFilterMatches(mol):
        try:  # a plain SMARTS matcher; composite matchers have no single pattern
            return Chem.MolToSmarts(found.filterMatch.GetPattern())
        except (AttributeError, RuntimeError):
            return None
    return None


@budget.task("alerts")
def alerts_now(smiles: str) -> tuple[tuple[str, str | None], ...] | None:
    """Return the ``(name, SMARTS)`` of each alert ``smiles`` matches, computed here and now
    (None: RDKit cannot read it). The chemistry child's task."""
    if not smiles or len(smiles) > MAX_SMILES:
        return None
    with BlockLogs():  # an unreadable SMILES of the set is unknown, not an error line
        mol = Chem.MolFromSmiles(smiles)
    return None if mol is None else alerts_of_mol(mol)


def alerts_of_mol(mol: Chem.Mol) -> tuple[tuple[str, str | None], ...]:
    """Return the ``(name, SMARTS)`` of each alert the parsed ``mol`` matches."""
    return tuple((entry.GetDescription(), _pattern_smarts(entry, mol))
                 for entry in _catalog().GetMatches(mol))


def uncached(smiles: Sequence[str]) -> bool:
    """Whether some of ``smiles`` has no answer in this process yet (work to do)."""
    return any(_known.get(text) is None for text in smiles)


def names_of(smiles: Sequence[str], total_seconds: float = TOTAL_SECONDS
             ) -> list[tuple[str, ...] | None]:
    """Return the alert names of each SMILES (None: unknown): cached ones at once, the rest
    in the budgeted child (``total_seconds`` for all of them)."""
    answers: list = [_known.get(text) for text in smiles]
    missing = [i for i, answer in enumerate(answers) if answer is None]
    if missing:
        found = budget.worker("alerts").run_each(
            "alerts", [smiles[i] for i in missing], item_seconds=ITEM_SECONDS,
            total_seconds=total_seconds)
        for index, answer in zip(missing, found, strict=True):
            if answer is budget.OVERRUN:
                continue  # not kept: another request may finish it
            names = _UNREADABLE if answer is None else tuple(name for name, _ in answer)
            for name, smarts in answer or ():
                if smarts:
                    _smarts.setdefault(name, smarts)
            answers[index] = names
            _known.put(smiles[index], names)
    return [None if a is None or a == _UNREADABLE else a for a in answers]


def remember(known: dict[str, tuple[str, ...] | None], smarts: dict[str, str]) -> None:
    """Keep answers the index computed (``frame_chemistry``): badges, exports and result
    pages of indexed molecules then ask the child nothing."""
    for name, pattern in smarts.items():
        if pattern:
            _smarts.setdefault(name, pattern)
    for text, names in known.items():
        _known.put(text, _UNREADABLE if names is None else names)


def of_molecule(smiles: str | None) -> list[Alert] | None:
    """Return the alerts of one molecule (result pages), or None when unknown."""
    if not smiles:
        return None
    names = names_of([smiles], PAGE_SECONDS)[0]
    if names is None:
        return None
    kinds = families()
    return [Alert(name, kinds.get(name, "pains"), _smarts.get(name)) for name in names]


def in_family(names: Sequence[str], family: str | None) -> tuple[str, ...]:
    """Return those of ``names`` in ``family`` (every one when ``family`` is None)."""
    if family is None:
        return tuple(names)
    kinds = families()
    return tuple(name for name in names if kinds.get(name) == family)


def clear_cache() -> None:
    """Forget every answer (tests)."""
    _known.clear()
