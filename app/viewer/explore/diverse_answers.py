"""``diverse=N``: the best-ranked design of each of N families of the view, in its order.

"The top 10" becomes "the top 10 families". The view's rows (filters and order applied:
``answers.ordered_rows``) are grouped into families and each family is shown by its
best-ranked row; families are ordered by that row, and the first N are the answer.

- Small molecules: Butina clusters (``chem.butina``, RDKit's ``ClusterData`` semantics,
  Tanimoto distance <= 0.6 on Morgan radius-2 fingerprints) over the view's best-ranked
  distinct molecules: the first ``POOL`` of them (rows sharing one molecule are one
  molecule), doubled while fewer than N clusters are found, up to ``MAX_POOL``. A result
  without a readable SMILES has no fingerprint and is in no family.
- Proteins: greedy families by sequence identity of the designed chain (first protein
  entity), >= 50% (``proteins.families``), over the first ``PROTEIN_POOL`` designs of the
  view in rank order, within a time budget.

A family's size is how many rows of the view fall in it among those clustered (the
whole view when it is no larger than the pool: ``Picks.complete``). Both are whole-set
work admitted by the work gate, and the answer is cached per index version and view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app import domain
from app.viewer.chem import butina, similarity
from app.viewer.explore import chem_answers
from app.viewer.explore.index.frame import Frame
from app.viewer.proteins import columns, families
from app.viewer.runtime import work_gate
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

POOL = 2000  # distinct molecules clustered first (4 M Tanimoto pairs)
MAX_POOL = 4000  # at most: 16 M Tanimoto pairs
PROTEIN_POOL = 1000  # designs read and grouped at most
_READ = 200  # records read from the store at a time


@dataclass(frozen=True)
class Picks:
    """The picked rows (frame rows, the view's order), per picked id (bytes) its family's
    size, how many rows of the view were grouped and whether that is the whole view."""

    rows: np.ndarray
    sizes: dict[bytes, int]
    grouped: int
    complete: bool


def picks(state: IndexState, data: Frame, rows: np.ndarray, wanted: int) -> Picks:
    """Return the best-ranked row of each of the first ``wanted`` families of ``rows``."""
    family = domain.kind(state.kind).family
    release = work_gate.enter("diverse") if len(rows) else None
    try:
        if family == "small_molecule":
            return _molecule_picks(state, data, rows, wanted)
        return _protein_picks(state, data, rows, wanted)
    finally:
        if release is not None:
            release()


def pool_bits(state: IndexState, data: Frame, codes: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Return the packed fingerprints (n, 256) and validity of the distinct molecules
    ``codes``: the index's (``chem_answers.fingerprints``, computed when it was built, no
    RDKit here); for a frame saved before the index kept them, the pool's own from
    ``chem.similarity``'s per-process cache and budgeted child (not the whole set's)."""
    if data.molecules is not None and data.molecules.chemistry is not None:
        bits, valid = chem_answers.fingerprints(state, data)
        return bits[codes], valid[codes]
    found = similarity.fingerprints([data.molecules.smiles[c] for c in codes])
    unpacked = np.zeros((len(codes), similarity.BITS), dtype=np.uint8)
    for i, fp in enumerate(found):
        if fp is not None:
            unpacked[i, list(fp.GetOnBits())] = 1
    valid = np.array([fp is not None for fp in found], dtype=bool)
    return np.packbits(unpacked, axis=1, bitorder="little"), valid


def _molecule_picks(state: IndexState, data: Frame, rows: np.ndarray, wanted: int) -> Picks:
    if data.molecules is None:
        return Picks(rows[:0], {}, 0, True)
    view_codes = data.molecules.codes[rows]
    # The view's distinct molecules, best-ranked first (a molecule ranks as its best row).
    present = np.flatnonzero(view_codes >= 0)
    distinct, first = np.unique(view_codes[present], return_index=True)
    ranked = distinct[np.argsort(first, kind="stable")]
    size = POOL
    while True:
        pool = ranked[:size]
        bits, valid = pool_bits(state, data, pool)
        kept = pool[valid]  # no fingerprint: in no family
        found = butina.clusters(bits[valid])
        if len(found) >= wanted or size >= min(len(ranked), MAX_POOL):
            break
        size *= 2
    # Each cluster's best-ranked molecule is its smallest pool index (pool: rank order).
    chosen = sorted(found, key=min)[:wanted]
    family_of = np.full(len(data.molecules.smiles), -1, dtype=np.int64)
    for number, members in enumerate(chosen):
        family_of[kept[members]] = number
    in_pool = np.zeros(len(data.molecules.smiles), dtype=bool)
    in_pool[pool] = True
    row_family = np.where(view_codes >= 0, family_of[np.maximum(view_codes, 0)], -1)
    firsts = [int(np.argmax(row_family == number)) for number in range(len(chosen))]
    counts = np.bincount(row_family[row_family >= 0], minlength=len(chosen))
    picked = rows[np.array(sorted(firsts), dtype=np.int64)]
    sizes = {data.ids[rows[position]]: int(counts[number])
             for number, position in enumerate(firsts)}
    grouped = int(np.count_nonzero(in_pool[np.maximum(view_codes, 0)] & (view_codes >= 0)))
    return Picks(picked, sizes, grouped, len(pool) == len(ranked))


def _sequences(state: IndexState, data: Frame, rows: np.ndarray) -> Callable:
    """Yield the designed chain of each row (None: none), read from the store in batches."""
    def each():
        for start in range(0, len(rows), _READ):
            ids = data.id_list(rows[start:start + _READ])
            with get_engine().connect() as conn:
                found = {r.get("id"): columns.designed_sequence(r)
                         for r in queries.records(conn, state.pipeline_id, ids)}
            yield from (found.get(i) for i in ids)
    return each


def _protein_picks(state: IndexState, data: Frame, rows: np.ndarray, wanted: int) -> Picks:
    pool = rows[:PROTEIN_POOL]
    found = families.group(_sequences(state, data, pool)(), wanted)
    picked = pool[np.array(found.founders, dtype=np.int64)]
    sizes = {data.ids[row]: size for row, size in zip(picked, found.sizes, strict=True)}
    return Picks(picked, sizes, found.examined, found.complete and len(pool) == len(rows))
