"""Butina clustering of Morgan fingerprints (Butina 1999), as RDKit's ``ClusterData`` does it.

``rdkit.ML.Cluster.Butina.ClusterData(dists, n, cutoff, isDistData=True)`` is the reference:
two molecules are neighbours when their Tanimoto distance (1 - similarity) is at most
``cutoff`` (each is its own neighbour); the molecule with the most neighbours (ties: the
higher index) becomes a centroid and takes every neighbour not yet in a cluster; then the
next unclustered molecule with the most neighbours, and so on (counts are not updated:
``reordering=False``); molecules without a neighbour are singletons. This module gives the
same clusters, but RDKit's builds an n x n float matrix and Python lists; here the
common bits of every pair come from one matrix product per block of rows (BLAS on the
unpacked bits, rather than ``BulkTanimotoSimilarity`` row by row), the Tanimoto as
RDKit divides it (common / (a + b - common) in float64: the same numbers), and only the
neighbour indices are kept.

Fingerprints come in as a packed ``uint8`` array (n, 256): Morgan radius 2, 2048 bits,
``np.packbits(..., bitorder="little")`` (the index's form, ``chem_answers.fingerprints``).
"""

from __future__ import annotations

import numpy as np

# Tanimoto distance at most 0.6, i.e. similarity at least 0.4 on Morgan radius-2 2,048-bit
# fingerprints: pairs of unrelated drug-like molecules score 0.1-0.3 on these bits
# (Landrum's "thresholds for random" put the 99th percentile of random ChEMBL pairs near
# 0.3), so a neighbour at 0.4 or more is an analogue of the same series, not chance;
# stricter (0.3, similarity 0.7) splits a series into close analogues, the ten "families"
# a shortlist wants would be ten flavours of one series.
CUTOFF = 0.6
_BLOCK = 256  # rows of pairs at a time: 256 x 8,000 float64, 16 MB


def neighbours(bits: np.ndarray, cutoff: float = CUTOFF) -> list[np.ndarray]:
    """Return each fingerprint's neighbours (itself included): distance <= ``cutoff``."""
    count = len(bits)
    unpacked = np.unpackbits(bits, axis=1, bitorder="little").astype(np.float32)
    on = unpacked.sum(axis=1, dtype=np.float64)
    out = []
    for start in range(0, count, _BLOCK):
        # Common on-bits of each pair: whole numbers below 2**24, exact in float32.
        common = (unpacked[start:start + _BLOCK] @ unpacked.T).astype(np.float64)
        union = on[start:start + _BLOCK, None] + on[None, :] - common
        with np.errstate(invalid="ignore", divide="ignore"):
            similar = np.where(union > 0, common / union, 0.0)  # RDKit: 0 for two empty
        # The same float64 as RDKit's ClusterData compares: 1 - Tanimoto, <= cutoff; and
        # each its own neighbour (its distance matrix has a zero diagonal).
        close = (1.0 - similar) <= cutoff
        close[np.arange(len(close)), np.arange(start, start + len(close))] = True
        out.extend(np.flatnonzero(row) for row in close)
    return out


def clusters(bits: np.ndarray, cutoff: float = CUTOFF) -> list[list[int]]:
    """Return the Butina clusters of the fingerprints, as ``ClusterData`` orders them:
    each a list of indices whose first is the centroid, the rest in index order."""
    found = neighbours(bits, cutoff)
    count = len(found)
    # ClusterData sorts (neighbour count, index) pairs in reverse: most first, ties by
    # the higher index.
    order = sorted(range(count), key=lambda i: (len(found[i]), i), reverse=True)
    seen = np.zeros(count, dtype=bool)
    out: list[list[int]] = []
    for index in order:
        if seen[index]:
            continue
        seen[index] = True
        members = found[index][~seen[found[index]]]  # ascending, as ClusterData adds them
        seen[members] = True
        out.append([index, *(int(i) for i in members)])
    return out
