"""Whole-set epitope answers: the ``contacts=`` filters and the contact-frequency strip.

Both read the pipeline's readings (``store.epitopes``) once per scan progress and keep,
per target residue, the ids of the designs that contact it (``Contacts``), in a small LRU
cache keyed by how many designs were read: a finished or advancing scan is seen at once.
The filter's answers are cached with the index's (``explore.answers``) under the same
``progress_key``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.viewer.epitope import query_keys
from app.viewer.runtime.cache import BoundedCache
from app.viewer.store import epitopes as store
from app.viewer.store import get_engine


@dataclass(frozen=True)
class Contacts:
    """Per target residue "B:12", the designs contacting it; and how many were read."""

    by_residue: dict[str, np.ndarray]  # ids as bytes, like a frame's
    read: int  # designs read as ok (the strip's denominator)


_CACHED = 4
_cache: BoundedCache[Contacts] = BoundedCache(_CACHED)
MAX_STRIP = 5_000  # residues of a target shown (the liabilities' cap on sequences)


def progress_key(pipeline_id: str) -> tuple:
    """Return what changes when the pipeline's readings do (scan progress)."""
    with get_engine().connect() as conn:
        scan = store.get(conn, pipeline_id)
    return (0, None) if scan is None else (scan.done, scan.finished_count)


def contacts(pipeline_id: str) -> Contacts:
    """Return the pipeline's contacts per residue (cached per scan progress)."""
    return _cache.get_or_compute((pipeline_id, progress_key(pipeline_id)),
                                 lambda: _read(pipeline_id))


def _read(pipeline_id: str) -> Contacts:
    with get_engine().connect() as conn:
        rows = store.readings(conn, pipeline_id)
    grouped: dict[str, list[bytes]] = {}
    for result_id, text in rows:
        for residue in text.split():
            grouped.setdefault(residue, []).append(result_id.encode())
    return Contacts({r: np.array(ids, dtype="S") for r, ids in grouped.items()}, len(rows))


def contact_rows(pipeline_id: str, ids: np.ndarray, query) -> np.ndarray:
    """Return which of the frame's ``ids`` match ``contacts=`` (all) and ``contacts_any=``.

    A design not read yet (or without a readable structure) matches neither.
    """
    found = contacts(pipeline_id).by_residue
    empty = np.array([], dtype="S")
    keep = np.ones(len(ids), dtype=bool)
    for chain, number in query_keys.residues(query.contacts):
        keep &= np.isin(ids, found.get(f"{chain}:{number}", empty))
    if query.contacts_any:
        listed = [found.get(f"{c}:{n}", empty) for c, n in query_keys.residues(
            query.contacts_any)]
        keep &= np.isin(ids, np.concatenate(listed))
    return keep


@dataclass(frozen=True)
class StripResidue:
    """One target residue of the strip: its place, letter and contact frequency."""

    chain: str
    number: int
    letter: str
    designs: int  # designs contacting it
    fraction: float  # of the designs read

    @property
    def key(self) -> str:
        """Return the residue as the filter writes it ("B:12")."""
        return f"{self.chain}:{self.number}"


def strip(pipeline_id: str, targets: list[tuple[str, str]]) -> tuple[list[list[StripResidue]],
                                                                      int]:
    """Return, per target chain (id, sequence), its residues' contact frequencies; and
    the number of designs read (the frequencies' denominator: the whole run)."""
    found = contacts(pipeline_id)
    total = max(found.read, 1)
    chains = []
    for chain, sequence in targets:
        chains.append([
            StripResidue(chain, i, letter, n, n / total)
            for i, letter in enumerate(sequence[:MAX_STRIP], start=1)
            for n in (len(found.by_residue.get(f"{chain}:{i}", ())),)])
    return chains, found.read
