"""Substructure screening: RDKit pattern fingerprints as packed bits, screened in NumPy.

A molecule can contain a query only if every bit of the query's pattern fingerprint
(``Chem.PatternFingerprint``, 2048 bits: RDKit's fingerprint made for this, the one its
``SubstructLibrary`` screens with) is set in the molecule's. The index build stores each
distinct molecule's fingerprint packed as the Morgan ones (256 bytes, ``fingerprint_bits``)
and its record (``record_of``: RDKit's binary pickle ``Mol.ToBinary()``, zlib-compressed),
so a new ``smarts=`` query screens every molecule in NumPy (``screen``: milliseconds for a
million) and confirms only the candidates with ``HasSubstructMatch`` in the budgeted child
(``substructure.confirm_within_budget``), each candidate read from its record instead of
its SMILES (cheaper than parsing: the pickle keeps the sanitised molecule, its
ring info included).

The record is the binary pickle, not a canonical SMILES read "trusted" (unsanitised, rings
by ``FastFindRings``, as ``CachedTrustedSmilesMolHolder`` does, cheaper still): that
answers hybridisation queries (``[^2]``) and ring-size queries (``[r10]``,
``[R3]``) differently from a sanitised molecule, and the answer must be RDKit's own.

Fingerprints and pickles belong to the RDKit version that made them (``SCHEME``): a frame
made by another version is not screened (every molecule confirmed from its SMILES, as
before the screen) until its next build recomputes them.
"""

from __future__ import annotations

import zlib

import numpy as np
import rdkit
from rdkit import Chem

from app.viewer.chem import fingerprint_bits

BITS = fingerprint_bits.BITS  # 2048, packed as 256 bytes like the Morgan fingerprints
SCHEME = f"rdkit-pattern-{BITS}/{rdkit.__version__}"
# Past 1 in BROAD rows passing the query's fullest word, the rest is checked block by block.
BROAD = 8
BLOCK = 16_384
# A pickle of the largest molecule the index reads (2,000 SMILES characters) is ~40 KB.
MAX_PICKLE = 1 << 20


def bits_of(mol: Chem.Mol) -> bytes:
    """Return the packed pattern fingerprint (256 bytes) of a molecule or a query."""
    return fingerprint_bits.from_rdkit(Chem.PatternFingerprint(mol, BITS)).tobytes()


def record_of(mol: Chem.Mol) -> bytes:
    """Return the record a candidate is confirmed from: ``mol``'s compressed pickle
    (~200 bytes for a drug-like molecule; the pickle alone is ~380)."""
    return zlib.compress(mol.ToBinary(), 6)


def pickle_of(record: bytes) -> bytes:
    """Return the binary pickle of a ``record_of`` record (``ValueError`` if it unpacks
    past ``MAX_PICKLE``: a saved frame is data, not trust; ``zlib.error`` if damaged)."""
    unpacker = zlib.decompressobj()
    pickle = unpacker.decompress(record, MAX_PICKLE)
    if unpacker.unconsumed_tail:
        raise ValueError("record larger than a molecule of a pipeline")
    return pickle


def mol_of(record: bytes) -> Chem.Mol:
    """Return the molecule of a ``record_of`` record (errors: ``pickle_of``'s, and RDKit's
    ``RuntimeError`` for a pickle it cannot read)."""
    return Chem.Mol(pickle_of(record))


def screen(bits: np.ndarray, valid: np.ndarray, query: np.ndarray | None) -> np.ndarray:
    """Return the indices (ascending) of the molecules that may contain the query.

    ``bits`` is (n, 256) uint8 (pattern fingerprints), ``valid`` (n,) bool (False: no
    fingerprint, always a candidate), ``query`` the query's 256 packed bytes (None or all
    zeros: every molecule is a candidate). The query's words are checked one at a time,
    fullest first, each against the candidates left (64 bits at a time on ``uint64``
    views), so a selective query reads one column of the million rows and little else;
    when most rows pass the first word, the rest is checked on blocks of rows instead.
    """
    size = len(bits)
    if query is None or size == 0 or not query.any():
        return np.arange(size)
    words = np.ascontiguousarray(bits, dtype=np.uint8).view(np.uint64)
    wanted = np.ascontiguousarray(query, dtype=np.uint8).view(np.uint64)
    needed = np.flatnonzero(wanted)
    needed = needed[np.argsort(-np.bitwise_count(wanted[needed]), kind="stable")]
    first = needed[0]
    candidates = np.flatnonzero((words[:, first] & wanted[first]) == wanted[first])
    if len(candidates) * BROAD > size:  # many rows pass: whole blocks beat gathering
        return _union(_by_blocks(words, wanted, needed), valid)
    for word in needed[1:]:
        candidates = candidates[(words[candidates, word] & wanted[word]) == wanted[word]]
    return _union(candidates, valid)


def _by_blocks(words: np.ndarray, wanted: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """Return the rows holding every wanted bit, ``BLOCK`` rows at a time (cache-sized)."""
    found = []
    query = wanted[needed]
    for start in range(0, len(words), BLOCK):
        block = words[start:start + BLOCK][:, needed]
        found.append(np.flatnonzero(~(~block & query).any(axis=1)) + start)
    return np.concatenate(found)


def _union(candidates: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Return ``candidates`` and every molecule without a fingerprint."""
    unscreened = np.flatnonzero(~np.asarray(valid, dtype=bool))
    if len(unscreened):
        candidates = np.union1d(candidates, unscreened)
    return candidates
