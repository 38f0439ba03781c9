"""Bemis-Murcko scaffolds of ``scaffold=`` and ``group=scaffold`` (RDKit's MurckoScaffold).

A molecule's scaffold is its ring systems and the linkers between them, side chains cut
off (Bemis and Murcko 1996): the chemist's "series". It is written as RDKit's canonical
SMILES of ``MurckoScaffold.GetScaffoldForMol``, so two molecules share a scaffold exactly
when those texts are equal. An acyclic molecule has the empty scaffold, shown and queried
as ``ACYCLIC`` ("acyclic"); a SMILES RDKit cannot read has none (``None``): it is in no
scaffold's answer.

Each distinct SMILES is computed once per process (a bounded cache), the missing ones in
the budgeted chemistry child (``budget``), as the PAINS alerts are (``alerts``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.rdBase import BlockLogs

from app.viewer.runtime import budget
from app.viewer.runtime.cache import BoundedCache

ACYCLIC = "acyclic"
ITEM_SECONDS = 2.0
TOTAL_SECONDS = 60.0
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
# One short text per distinct molecule: 200,000 covers the largest index we serve twice.
_known: BoundedCache[str] = BoundedCache(200_000)
_UNREADABLE = "\x00"  # cached marker of a SMILES RDKit cannot read (None is "not cached")


@budget.task("scaffold")
def scaffold_now(smiles: str) -> str | None:
    """Return the canonical scaffold SMILES of ``smiles`` ("" if acyclic), None if unreadable."""
    if not smiles or len(smiles) > MAX_SMILES:
        return None
    with BlockLogs():  # an unreadable SMILES of the set has no scaffold, not an error line
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return None
        return scaffold_of_mol(mol)


def scaffold_of_mol(mol: Chem.Mol) -> str:
    """Return the canonical SMILES of ``mol``'s Bemis-Murcko scaffold, "" if acyclic.

    A molecule without rings has the empty scaffold; it is answered without RDKit's
    decomposition, whose time grows with the square of a chain's length (1.4 s for a
    1,000-atom chain, enough to stall the index build of a hostile set).
    """
    if mol.GetRingInfo().NumRings() == 0:
        return ""
    return Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol))


def display(scaffold: str) -> str:
    """Return how a scaffold is shown and queried: its SMILES, or ``ACYCLIC``."""
    return scaffold or ACYCLIC


def scaffolds(smiles: Sequence[str]) -> list[str | None]:
    """Return the scaffold of each SMILES: cached ones at once, the rest in the child."""
    answers: list[str | None] = [_known.get(text) for text in smiles]
    missing = [i for i, answer in enumerate(answers) if answer is None]
    if missing:
        found = budget.worker("scaffolds").run_each(
            "scaffold", [smiles[i] for i in missing], item_seconds=ITEM_SECONDS,
            total_seconds=TOTAL_SECONDS)
        for index, answer in zip(missing, found, strict=True):
            if answer is budget.OVERRUN:
                continue  # unknown for now: another request may finish it
            answers[index] = _UNREADABLE if answer is None else answer
            _known.put(smiles[index], answers[index])
    return [None if a is None or a == _UNREADABLE else a for a in answers]


def uncached(smiles: Sequence[str]) -> bool:
    """Whether some of ``smiles`` has no scaffold in this process yet (work to do)."""
    return any(_known.get(text) is None for text in smiles)


def clear_cache() -> None:
    """Forget every scaffold (tests, benchmarks)."""
    _known.clear()
