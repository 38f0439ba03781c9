"""Scaffold and similarity answers over a pipeline's frame: per distinct SMILES, cached.

``answers`` asks this module for the rows of ``scaffold=``, the ``similarity`` column of
``similar_to=`` (added to the frame the view reads, so ``similarity__gte`` and
``sort=-similarity`` are ordinary number filters and sorts) and the groups of
``group=scaffold``; ``fingerprints`` gives the packed fingerprints others build on
(``diverse=``).

The index build computed each distinct SMILES's scaffold and fingerprint
(``frame_chemistry``, ``Molecules.chemistry``): these are read from the frame, and
Tanimoto runs in NumPy on packed bits (``chem.fingerprint_bits``), no RDKit on the
request. A frame saved before that (or built on a request while a refresh runs) has none:
then the chemistry runs once per distinct SMILES in the budgeted child (``chem.scaffolds``,
``chem.similarity``), admitted by the work gate when there are molecules to do. The
per-version answers are kept here, keyed by the index version, so an append never serves
stale ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from app.viewer.chem import fingerprint_bits, scaffolds, similarity
from app.viewer.core.errors import BadRequest
from app.viewer.explore.index.frame import Frame
from app.viewer.runtime import work_gate
from app.viewer.runtime.cache import BoundedCache
from app.viewer.store.result_index import IndexState

# Per index version: a scaffold table and a fingerprint list per pipeline, and recent
# similarity columns (800 KB each at 100,000 results).
_cache: BoundedCache = BoundedCache(64)
# Up to this many distinct molecules (scaffolds computed within a page's wait) every
# page shows the facet; a larger set computes them when a visitor asks (scaffold=,
# group=scaffold).
EAGER_SCAFFOLDS = 2000


def _gated(name: str, busy: bool, compute: Callable[[], object]):
    """Run ``compute``, admitted by the work gate (or Busy) when it has molecules to do."""
    release = work_gate.enter(name) if busy else None
    try:
        return compute()
    finally:
        if release is not None:
            release()


def scaffold_table(state: IndexState, data: Frame) -> tuple[np.ndarray, list[str]]:
    """Return each row's scaffold code (-1: none) and the scaffolds as shown ("acyclic"
    for the empty one), each distinct SMILES's scaffold computed once (``chem.scaffolds``)."""
    def compute() -> tuple[np.ndarray, list[str]]:
        molecules = data.molecules
        if molecules is None or not molecules.smiles:
            return np.full(data.size, -1, dtype=np.int32), []
        chemistry = molecules.chemistry
        if chemistry is not None:  # computed at index time
            known = chemistry.scaffold_codes
            rows = np.where(molecules.codes >= 0, known[np.maximum(molecules.codes, 0)], -1)
            return rows.astype(np.int32), [scaffolds.display(s)
                                           for s in chemistry.scaffold_names]
        found = _gated("scaffolds", scaffolds.uncached(molecules.smiles),
                       lambda: scaffolds.scaffolds(molecules.smiles))
        names: dict[str, int] = {}
        per_molecule = np.array([-1 if s is None else names.setdefault(
            scaffolds.display(s), len(names)) for s in found], dtype=np.int32)
        rows = np.where(molecules.codes >= 0,
                        per_molecule[np.maximum(molecules.codes, 0)], -1)
        return rows.astype(np.int32), list(names)

    return _cache.get_or_compute((state.pipeline_id, state.version, "scaffolds"), compute)


def scaffolds_known(state: IndexState, data: Frame) -> bool:
    """Whether the scaffold facet costs no more than a moment now: the table is cached, or
    the set has at most ``EAGER_SCAFFOLDS`` distinct molecules, or all are in the cache."""
    if _cache.get((state.pipeline_id, state.version, "scaffolds")) is not None:
        return True
    if data.molecules is not None and data.molecules.chemistry is not None:
        return True
    smiles = data.molecules.smiles if data.molecules is not None else []
    return len(smiles) <= EAGER_SCAFFOLDS or not scaffolds.uncached(smiles)


def scaffold_rows(state: IndexState, data: Frame, scaffold: str) -> np.ndarray:
    """Return which rows' molecule has the scaffold ``scaffold`` (as shown)."""
    codes, names = scaffold_table(state, data)
    return codes == (names.index(scaffold) if scaffold in names else -2)


def scaffold_counts(state: IndexState, data: Frame, keep: np.ndarray,
                    top: int = 10) -> list[tuple[str, int]]:
    """Return the ``top`` scaffolds of the matching rows with their counts, most first."""
    codes, names = scaffold_table(state, data)
    counts = np.bincount(codes[keep & (codes >= 0)], minlength=len(names))
    order = np.lexsort((np.arange(len(names)), -counts))[:top]
    return [(names[i], int(counts[i])) for i in order if counts[i]]


def groups(state: IndexState, data: Frame, rows: np.ndarray
           ) -> tuple[np.ndarray, dict[bytes, tuple[str, int]]]:
    """Return the first row of each scaffold in ``rows``' order (the view's), and per
    such row's id its scaffold and how many rows of the view share it."""
    codes, names = scaffold_table(state, data)
    view_codes = codes[rows]
    known = view_codes >= 0
    found, first, counts = np.unique(view_codes[known], return_index=True,
                                     return_counts=True)
    positions = np.flatnonzero(known)[first]
    order = np.argsort(positions, kind="stable")
    chosen = rows[positions[order]]
    about = {data.ids[row]: (names[code], int(n)) for row, code, n in
             zip(chosen, found[order], counts[order], strict=True)}
    return chosen, about


def similar_smiles(data: Frame, similar_to: str) -> str:
    """Return the SMILES ``similar_to`` stands for: that result's, or the text itself."""
    hit = np.flatnonzero(data.ids == similar_to.encode())
    if len(hit) and data.molecules is not None and data.molecules.codes[hit[0]] >= 0:
        return data.molecules.smiles[data.molecules.codes[hit[0]]]
    return similar_to


def similarity_column(state: IndexState, data: Frame, similar_to: str) -> np.ndarray:
    """Return each row's Tanimoto similarity to ``similar_to`` (NaN: no fingerprint).

    A result id takes that row's fingerprint from the index; any other text must be a
    SMILES RDKit reads (else ``BadRequest``): its fingerprint is the one RDKit call."""
    def compute() -> np.ndarray:
        query = _query_bits(data, similar_to)
        molecules = data.molecules
        if molecules is None or not molecules.smiles:
            return np.full(data.size, np.nan)
        bits, valid = fingerprints(state, data)
        per_molecule = np.where(valid, fingerprint_bits.tanimoto_counted(
            query, int(fingerprint_bits.counts(query[None, :])[0]), bits,
            _bit_counts(state, bits)), np.nan)
        return np.where(molecules.codes >= 0,
                        per_molecule[np.maximum(molecules.codes, 0)], np.nan)

    return _cache.get_or_compute((state.pipeline_id, state.version, "similar", similar_to), compute)


def _query_bits(data: Frame, similar_to: str) -> np.ndarray:
    """Return the packed fingerprint of ``similar_to``: its row's, else of the SMILES."""
    molecules = data.molecules
    hit = np.flatnonzero(data.ids == similar_to.encode())
    if len(hit) and molecules is not None and molecules.chemistry is not None:
        code = molecules.codes[hit[0]]
        if code >= 0 and molecules.chemistry.fingerprint_valid[code]:
            return molecules.chemistry.fingerprint_bits[code]
    try:
        return fingerprint_bits.from_rdkit(similarity.query_fingerprint(
            similar_smiles(data, similar_to)))
    except BadRequest as error:
        raise BadRequest(f"'similar_to' {error.message}.") from None


def _bit_counts(state: IndexState, bits: np.ndarray) -> np.ndarray:
    return _cache.get_or_compute((state.pipeline_id, state.version, "bit counts"),
                                 lambda: fingerprint_bits.counts(bits))


def fingerprints(state: IndexState, data: Frame) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(bits, valid)`` of each distinct molecule (``data.molecules.smiles`` order).

    ``bits`` is uint8 of shape (n, 256): the Morgan fingerprint (radius 2, 2048 bits)
    packed by ``np.packbits(..., bitorder="little")`` (``chem.fingerprint_bits``: Tanimoto
    on it equals RDKit's); ``valid`` is bool (n,), False where RDKit could not read the
    SMILES or its budget ran out (that row is zeros). Row ``r`` of the frame has molecule
    ``data.molecules.codes[r]`` (-1: none). Read from the frame when the build computed
    it; else computed once per index version (budgeted child, work gate).
    """
    molecules = data.molecules
    if molecules is None or not molecules.smiles:
        return np.zeros((0, fingerprint_bits.BYTES), dtype=np.uint8), np.zeros(0, bool)
    if molecules.chemistry is not None:
        return molecules.chemistry.fingerprint_bits, molecules.chemistry.fingerprint_valid

    def compute() -> tuple[np.ndarray, np.ndarray]:
        smiles = molecules.smiles
        found = _gated("fingerprints", similarity.uncached(smiles),
                       lambda: similarity.fingerprints(smiles))
        return fingerprint_bits.stack([None if fp is None else
                                       fingerprint_bits.from_rdkit(fp).tobytes()
                                       for fp in found])

    return _cache.get_or_compute((state.pipeline_id, state.version, "fingerprints"), compute)


def with_similarity(state: IndexState, data: Frame, similar_to: str | None) -> Frame:
    """Return ``data`` with its ``similarity`` column to ``similar_to`` (as is if None)."""
    if not similar_to:
        return data
    column = similarity_column(state, data, similar_to)
    return replace(data, numbers={**data.numbers, "similarity": column})


def clear_caches() -> None:
    """Forget every per-version answer (benchmarks measure the computation this way)."""
    _cache.clear()
