"""Which distinct molecules of a frame hold a ``smarts=`` query: screen, then confirm.

With the index's screen (``frame_screen``, made by this RDKit): the query's pattern
fingerprint (made in the budgeted child) screens every molecule in NumPy
(``pattern_screen.screen``), and only the candidates are confirmed with RDKit's
``HasSubstructMatch`` in the child, each read from its record (its pickle), a molecule
without one (unreadable, or over budget at index time) from its SMILES. The answer equals
``HasSubstructMatch`` over every molecule (a molecule that holds the query has every bit
of the query's pattern fingerprint: RDKit's ``SubstructLibrary`` screens the same way).

Without it (a frame saved before the screen, built on a request, or by another RDKit):
every molecule is a candidate, confirmed from its SMILES.

The confirmation has ``substructure.TOTAL_SECONDS`` in all; past that the query is
refused (``substructure.TooBroad``, a 400 saying how far it got), not answered in part.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import numpy as np

from app.viewer.chem import pattern_screen, substructure
from app.viewer.explore.index.frame import Molecules

log = logging.getLogger(__name__)

# Candidates sent to the child per message: a few MB of records, never the whole set.
CHUNK = 20_000


def matching(molecules: Molecules, smarts: str, **confirming) -> np.ndarray:
    """Return which distinct molecules (``molecules.smiles`` order) hold ``smarts``
    (already read by ``substructure.parse_query``), as a bool array. ``confirming``:
    ``substructure.confirm_within_budget``'s options (budget, child, progress)."""
    candidates, usable = screened(molecules, smarts)
    return confirmed(molecules, smarts, candidates, usable, **confirming)


def _usable(molecules: Molecules) -> bool:
    """Whether the frame has a screen made by this RDKit (its records readable)."""
    chemistry = molecules.chemistry
    screen = chemistry.screen if chemistry is not None else None
    return screen is not None and screen.current


def screened(molecules: Molecules, smarts: str) -> tuple[np.ndarray, bool]:
    """Return the candidates of ``smarts`` (indices, ascending) and whether the frame's
    screen chose them (False: every molecule, none screened)."""
    size = len(molecules.smiles)
    usable = _usable(molecules)
    if usable:
        screen = molecules.chemistry.screen
        query = np.frombuffer(substructure.query_bits(smarts), dtype=np.uint8)
        candidates = pattern_screen.screen(screen.bits, screen.valid,
                                           query if len(query) else None)
    else:
        candidates = np.arange(size)
    log.info("substructure: %d of %d molecules to confirm (%s)", len(candidates), size,
             "screened" if usable else "no screen")
    return candidates, usable


def confirmed(molecules: Molecules, smarts: str, candidates: np.ndarray, usable: bool,
              **confirming) -> np.ndarray:
    """Return ``matching``'s answer from the ``screened`` candidates, each confirmed in
    the child (``substructure.confirm_within_budget``, with ``confirming``)."""
    found = substructure.confirm_within_budget(
        len(candidates), _chunks(molecules, candidates, usable), smarts, **confirming)
    out = np.zeros(len(molecules.smiles), dtype=bool)
    out[candidates[np.array(found, dtype=bool)]] = True
    return out


def confirm_each(molecules: Molecules, smarts: str, indices: np.ndarray, **confirming
                 ) -> list[bool]:
    """Return whether each molecule of ``indices`` holds ``smarts``, confirmed in the
    child (``substructure.confirm_within_budget``, with ``confirming``)."""
    usable = _usable(molecules)
    return substructure.confirm_within_budget(
        len(indices), _chunks(molecules, indices, usable), smarts, **confirming)


def _chunks(molecules: Molecules, candidates: np.ndarray, usable: bool
            ) -> Iterator[list[bytes | str]]:
    """Yield the candidates' records (SMILES where none) ``CHUNK`` at a time."""
    screen = molecules.chemistry.screen if usable else None
    for start in range(0, len(candidates), CHUNK):
        part = candidates[start:start + CHUNK]
        if screen is None:
            yield [molecules.smiles[i] for i in part.tolist()]
            continue
        records = screen.records_of(part)
        yield [record if record else molecules.smiles[i]
               for i, record in zip(part.tolist(), records, strict=True)]
