"""The protein columns of a whole API page at once, with NumPy (pure: no Flask, no I/O).

An index build asks for the ProtParam properties and liability counts of every designed
chain, and a design campaign's chains are all distinct: Biopython's ``ProteinAnalysis``
took 0.3 ms per chain (the isoelectric point alone bisects in Python, 17 charge sums of
nine terms), about 300 ms of every 1,000-result page and most of a build. ``values_many``
computes the same numbers for a page's chains in a few array operations:

- residue counts and dipeptide scores from one concatenated code array;
- weight and GRAVY summed over the sequence as Biopython sums them, the instability
  index's dipeptide scores added in the same order (their tables have one or two decimals:
  a mean often lies on a rounding boundary at 4 decimals, where another order of
  additions would round the other way), the extinction coefficient (cystines formed)
  from the counts, with Biopython's tables (``IUPACData.protein_weights``,
  ``ProtParamData.kd``/``DIWV``);
- the isoelectric point by Biopython's own bisection (``IsoelectricPoint.pi``: same
  start, interval, stopping width and Bjellqvist pKs, terminal pKs by first and last
  residue), run for every chain at once; the net charge at pH 7.4 by the same sum.

Every value is rounded to 4 decimals as ``properties.compute`` rounds them; sums in
another order can differ from Biopython's in the last bits only (never at 4 decimals in
``tests/viewer/proteins/test_protein_batch.py``). Liability counts use ``str.count`` for
the two-letter motifs (they cannot overlap themselves) and the sequon regex of
``liabilities`` for N-X-S/T.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
from Bio.Data import IUPACData
from Bio.SeqUtils import IsoelectricPoint as iep
from Bio.SeqUtils import ProtParamData

from app.viewer.proteins import columns, liabilities, properties

_LETTERS = "ACDEFGHIKLMNPQRSTVWY"
_AT = {letter: i for i, letter in enumerate(_LETTERS)}
_CODE = np.zeros(256, np.intp)
for _letter, _i in _AT.items():
    _CODE[ord(_letter)] = _i
_WEIGHT = np.array([IUPACData.protein_weights[a] for a in _LETTERS])
# Kyte-Doolittle (one decimal) and dipeptide instability weights (two, and 33.601 for
# FY) as exact integers.
_KD10 = np.array([round(ProtParamData.kd[a] * 10) for a in _LETTERS], np.int64)
_DIWV1000 = np.array([[round(ProtParamData.DIWV[a][b] * 1000) for b in _LETTERS]
                      for a in _LETTERS], np.int64).ravel()
_WATER = 18.0153  # average mass, as Biopython's molecular_weight
# Bjellqvist's pKs in Biopython's order (the sums add in it): (count column or None for
# the terminus, pK).
_POSITIVE = [(None, iep.positive_pKs["Nterm"])] + [
    (_AT[a], iep.positive_pKs[a]) for a in ("K", "R", "H")]
_NEGATIVE = [(None, iep.negative_pKs["Cterm"])] + [
    (_AT[a], iep.negative_pKs[a]) for a in ("D", "E", "C", "Y")]
_GLYCOSYLATION = liabilities._MOTIFS["n_glycosylation"][0]


def _charge(counts: np.ndarray, n_pk: np.ndarray, c_pk: np.ndarray, ph) -> np.ndarray:
    """Biopython's ``charge_at_pH`` for every chain (terms added in its order)."""
    positive = np.zeros(len(counts))
    for column, pk in _POSITIVE:
        count = 1.0 if column is None else counts[:, column]
        positive = positive + count * (1.0 / (10 ** (ph - (n_pk if column is None else pk))
                                              + 1.0))
    negative = np.zeros(len(counts))
    for column, pk in _NEGATIVE:
        count = 1.0 if column is None else counts[:, column]
        negative = negative + count * (1.0 / (10 ** ((c_pk if column is None else pk) - ph)
                                              + 1.0))
    return positive - negative


def _isoelectric(counts: np.ndarray, n_pk: np.ndarray, c_pk: np.ndarray) -> np.ndarray:
    """Biopython's ``IsoelectricPoint.pi`` bisection, for every chain at once."""
    size = len(counts)
    ph, low, high = np.full(size, 7.775), np.full(size, 4.05), np.full(size, 12.0)
    active = np.ones(size, bool)
    while active.any():
        charge = _charge(counts, n_pk, c_pk, ph)
        active = (high - low) > 0.0001
        up = active & (charge > 0.0)
        down = active & ~(charge > 0.0)
        low = np.where(up, ph, low)
        high = np.where(down, ph, high)
        ph = np.where(active, (low + high) / 2, ph)
    return ph


def _on_boundary(sums: np.ndarray, divisors: np.ndarray) -> np.ndarray:
    """Whether ``sums / divisors`` (exact) lies half-way between two 4-decimal values,
    where rounding depends on the last bits of how it was added up."""
    scaled = sums * 20_000
    return (scaled % divisors == 0) & ((scaled // divisors) % 2 == 1)


def _biopython_instability(text: str) -> float:
    """Biopython's ``instability_index`` additions, for a value on a rounding boundary."""
    score = 0.0
    for i in range(len(text) - 1):
        score += ProtParamData.DIWV[text[i]][text[i + 1]]
    return (10.0 / len(text)) * score


def properties_many(texts: list[str]) -> list[dict[str, float | None]]:
    """Return ``properties.compute``'s values for cleaned, non-empty ``texts``."""
    if not texts:
        return []
    lengths = np.array([len(text) for text in texts])
    codes = _CODE[np.frombuffer("".join(texts).encode("ascii"), np.uint8)]
    owner = np.repeat(np.arange(len(texts)), lengths)
    counts = np.bincount(owner * 20 + codes, minlength=len(texts) * 20).reshape(-1, 20)
    # Exact integer sums (the tables have one and two decimals), so that a value lying on
    # a rounding boundary at 4 decimals is known: only those take Biopython's own additions
    # (``_on_boundary``); any other is rounded the same whatever the order of additions.
    kd_sums = counts.astype(np.int64) @ _KD10
    pair_scores = _DIWV1000[codes[:-1] * 20 + codes[1:]]
    pair_scores[np.cumsum(lengths)[:-1] - 1] = 0  # pairs across two chains weigh nothing
    scores = np.add.reduceat(np.append(pair_scores, 0), np.cumsum(lengths) - lengths)
    scores[lengths < 2] = 0
    n_pk = np.array([iep.pKnterminal.get(t[0], iep.positive_pKs["Nterm"]) for t in texts])
    c_pk = np.array([iep.pKcterminal.get(t[-1], iep.negative_pKs["Cterm"]) for t in texts])
    counts = counts.astype(float)
    gravy = kd_sums / (10 * lengths)
    instability = scores / (100 * lengths)  # (10 / length) * score / 1000
    for i in np.flatnonzero(_on_boundary(kd_sums, 10 * lengths)).tolist():
        gravy[i] = sum(map(ProtParamData.kd.__getitem__, texts[i])) / len(texts[i])
    for i in np.flatnonzero(_on_boundary(scores, 100 * lengths)).tolist():
        instability[i] = _biopython_instability(texts[i])
    columns_ = {
        # Weights have 4 decimals: the exact sum lies on the rounding grid, never between.
        "protein_weight": counts @ _WEIGHT - (lengths - 1) * _WATER,
        "isoelectric_point": _isoelectric(counts, n_pk, c_pk),
        "net_charge": _charge(counts, n_pk, c_pk, properties.NET_CHARGE_PH),
        "gravy": gravy,
        "instability_index": instability,
        "extinction_coefficient": counts[:, _AT["W"]] * 5500 + counts[:, _AT["Y"]] * 1490
        + (counts[:, _AT["C"]] // 2) * 125,
    }
    # Column by column: Python's ``round`` (correctly rounded, as ``properties.compute``
    # rounds; NumPy's is not) mapped over each column's floats, no per-value branching.
    rounded = []
    for key in properties.KEYS:
        values = columns_[key]
        finite = np.isfinite(values)
        out = list(map(round, values.tolist(), repeat(4)))
        if key == "instability_index":
            finite &= lengths >= 2  # no dipeptide
        for i in np.flatnonzero(~finite).tolist():
            out[i] = None
        rounded.append(out)
    return [dict(zip(properties.KEYS, row, strict=True)) for row in zip(*rounded, strict=True)]


_LIABILITY_KEYS = ("liability_count", *(columns.LIABILITY_COLUMNS[name] for name in (
    "n_glycosylation", "deamidation", "isomerization", "unpaired_cysteine", "oxidation")))
_NO_PROPERTIES = (None,) * len(properties.KEYS)
_KEYS = (*properties.KEYS, *_LIABILITY_KEYS)


def _liabilities(sequence: str) -> tuple[int, int, int, int, int, None]:
    """``liabilities.counts`` without oxidation (read from the structure later): the
    total, then N-glycosylation, deamidation, isomerization, unpaired cysteine, None."""
    text = liabilities.clean(sequence)
    counts = (len(_GLYCOSYLATION.findall(text)),  # lookahead: overlaps count
              text.count("NG") + text.count("NS"),
              text.count("DG") + text.count("DS"),
              text.count("C") % 2)
    return (sum(counts), *counts, None)


def columns_many(sequences: list[object]) -> dict[str, list[float | int | None]]:
    """Return ``columns.values`` of each of ``sequences`` as columns: a list per key of
    ``columns.KEYS`` (computed once per distinct sequence)."""
    capped = [s[:liabilities.MAX_RESIDUES] if isinstance(s, str) and s else None
              for s in sequences]
    distinct = list(dict.fromkeys(s for s in capped if s is not None))
    cleaned = [properties.cleaned(s) for s in distinct]
    computed = iter(properties_many([text for text in cleaned if text]))
    found: dict[str | None, tuple] = {None: (None,) * len(_KEYS)}
    for sequence, text in zip(distinct, cleaned, strict=True):
        measured = tuple(next(computed).values()) if text else _NO_PROPERTIES
        found[sequence] = measured + _liabilities(sequence)
    if not capped:
        return {key: [] for key in _KEYS}
    return dict(zip(_KEYS, map(list, zip(*map(found.__getitem__, capped), strict=True)),
                    strict=True))


def values_many(sequences: list[object]) -> list[dict[str, float | int | None]]:
    """Return ``columns.values`` of each of ``sequences`` (computed once per distinct one)."""
    listed = columns_many(sequences)
    return [dict(zip(listed, row, strict=True)) for row in zip(*listed.values(), strict=True)]
