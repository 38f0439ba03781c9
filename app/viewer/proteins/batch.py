"""The protein columns of a whole API page at once, with NumPy (pure: no Flask, no I/O).

An index build asks for the ProtParam properties and liability counts of every designed
chain, and a design campaign's chains are all distinct: Biopython's ``ProteinAnalysis``
works chain by chain in Python (the isoelectric point alone bisects, 17 charge sums of
nine terms), which would be most of a build. ``values_many``
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
  residue), run for every chain at once, each step going the way Biopython's sum of
  charges says (read from a sum with one power of ten per chain where its sign is
  beyond doubt, ``_isoelectric``); the net charge at pH 7.4 by Biopython's sum.

Every value is rounded to 4 decimals as ``properties.compute`` rounds them (Python's
correctly rounded ``round``, done for a whole column at once by ``_round4``); sums in
another order can differ from Biopython's in the last bits only (never at 4 decimals in
``tests/viewer/proteins/test_protein_batch.py``). The chains are cleaned and their
liabilities counted on one array of their upper-case letters (``_liabilities_many``:
N-X-S/T at every start, overlapping ones too, as ``liabilities``' lookahead regex; NG,
NS, DG, DS, which cannot overlap themselves, as ``str.count``; C parity), the letters of
one chain only. A chain outside ASCII (its upper case may have another length: "ß" is
"SS") is computed as ``columns.values`` computes it.
"""

from __future__ import annotations

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
_STANDARD = np.zeros(256, bool)
_STANDARD[[ord(letter) for letter in _LETTERS]] = True
# Terminal pKs by the first and last residue's code (``IsoelectricPoint`` reads them so).
_N_PK = np.array([iep.pKnterminal.get(a, iep.positive_pKs["Nterm"]) for a in _LETTERS])
_C_PK = np.array([iep.pKcterminal.get(a, iep.negative_pKs["Cterm"]) for a in _LETTERS])


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


# How far ``_charge_near`` may be from ``_charge``, per ionisable group of a chain (each
# term is at most its count, and the products and sums that differ from ``_charge``'s
# are off by a few parts in 10^15 of it): a thousand times that, to spare.
_NEAR = 1e-12
_INNER_POSITIVE = [column for column, _pk in _POSITIVE[1:]]
_INNER_NEGATIVE = [column for column, _pk in _NEGATIVE[1:]]


def _charge_terms(counts: np.ndarray, n_pk: np.ndarray, c_pk: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_charge_near``'s tables: per term of ``_charge`` (rows: the positive ones, then
    the negative ones) and chain, its signed count and its pK as a power of ten (10 **
    -pK for a positive term, 10 ** pK for a negative one), and each chain's margin
    (``_NEAR`` per ionisable group)."""
    size = len(counts)
    positive, negative = len(_POSITIVE), len(_NEGATIVE)
    weights = np.empty((positive + negative, size))
    weights[0], weights[positive] = 1.0, -1.0  # the termini
    weights[1:positive] = counts[:, _INNER_POSITIVE].T
    weights[positive + 1:] = -counts[:, _INNER_NEGATIVE].T
    scales = np.empty_like(weights)
    scales[0], scales[positive] = 10.0 ** -n_pk, 10.0 ** c_pk
    scales[1:positive] = [[10.0 ** -pk] for _column, pk in _POSITIVE[1:]]
    scales[positive + 1:] = [[10.0 ** pk] for _column, pk in _NEGATIVE[1:]]
    return weights, scales, np.abs(weights).sum(axis=0) * _NEAR


def _charge_near(weights: np.ndarray, scales: np.ndarray, ph: np.ndarray) -> np.ndarray:
    """``_charge`` at ``ph`` to within ``_NEAR`` per ionisable group, with one power of
    ten per chain instead of nine (10 ** (ph - pK) as 10 ** ph * 10 ** -pK; the tables
    are ``_charge_terms``')."""
    ten = 10.0 ** ph
    powers = scales * ten  # 10 ** (ph - pK) for the positive terms
    powers[len(_POSITIVE):] = scales[len(_POSITIVE):] * (1.0 / ten)  # 10 ** (pK - ph)
    powers += 1.0
    return (weights / powers).sum(axis=0)


def _isoelectric(counts: np.ndarray, n_pk: np.ndarray, c_pk: np.ndarray) -> np.ndarray:
    """Biopython's ``IsoelectricPoint.pi`` bisection, for every chain at once.

    Each step goes by the sign of the charge at the chain's pH, which ``_charge_near``
    tells at a ninth of ``_charge``'s powers of ten whenever it is farther from zero than
    its error can be; a chain nearer zero (rare: its pH within about 10^-12 of its pI)
    takes ``_charge``'s own sum, so every step goes the way Biopython's goes."""
    size = len(counts)
    ph, low, high = np.full(size, 7.775), np.full(size, 4.05), np.full(size, 12.0)
    weights, scales, margin = _charge_terms(counts, n_pk, c_pk)
    while True:
        active = (high - low) > 0.0001
        if not active.any():  # Biopython stops at the same width
            return ph
        charge = _charge_near(weights, scales, ph)
        close = np.flatnonzero(np.abs(charge) <= margin)
        if len(close):
            charge[close] = _charge(counts[close], n_pk[close], c_pk[close], ph[close])
        up = charge > 0.0
        if active.all():  # the usual step: every chain is as wide (one start, one width)
            low, high = np.where(up, ph, low), np.where(up, high, ph)
            ph = (low + high) / 2
            continue
        up &= active
        down = active & ~(charge > 0.0)
        low = np.where(up, ph, low)
        high = np.where(down, ph, high)
        ph = np.where(active, (low + high) / 2, ph)


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


def _round4(values: np.ndarray) -> list[float]:
    """Return Python's ``round(value, 4)`` of each of ``values`` (finite), as floats.

    ``round`` is correctly rounded: the double nearest to the decimal with 4 places
    nearest to the exact value (half to even). ``rint(value * 1e4) / 1e4`` is that
    double (an integer divided by 10,000 exactly, IEEE division is correctly rounded)
    whenever the product's rounding error cannot cross a half: a product within a few
    ulps of one (a tie or nearly) takes ``round`` itself. NumPy's own ``round`` takes no
    such care (it differs from Python's in the last bit).
    """
    scaled = values * 1e4
    whole = np.rint(scaled)
    near_half = np.abs(np.abs(scaled - whole) - 0.5) <= 8 * np.spacing(np.abs(scaled))
    out = (whole / 1e4).tolist()
    for i in np.flatnonzero(near_half).tolist():
        out[i] = round(float(values[i]), 4)
    return out


def _properties(codes: np.ndarray, lengths: np.ndarray, text_of
                ) -> dict[str, list[float | None]]:
    """Return ``properties.compute``'s values as columns, for chains given as their
    cleaned residues' codes (``_CODE``, concatenated) and lengths (each > 0);
    ``text_of(i)`` is chain ``i``'s cleaned text (read for a value on a boundary)."""
    size = len(lengths)
    owner = np.repeat(np.arange(size), lengths)
    counts = np.bincount(owner * 20 + codes, minlength=size * 20).reshape(-1, 20)
    # Exact integer sums (the tables have one and two decimals), so that a value lying on
    # a rounding boundary at 4 decimals is known: only those take Biopython's own additions
    # (``_on_boundary``); any other is rounded the same whatever the order of additions.
    kd_sums = counts.astype(np.int64) @ _KD10
    ends = np.cumsum(lengths)
    pair_scores = _DIWV1000[codes[:-1] * 20 + codes[1:]]
    pair_scores[ends[:-1] - 1] = 0  # pairs across two chains weigh nothing
    scores = np.add.reduceat(np.append(pair_scores, 0), ends - lengths)
    scores[lengths < 2] = 0
    n_pk, c_pk = _N_PK[codes[ends - lengths]], _C_PK[codes[ends - 1]]
    counts = counts.astype(float)
    gravy = kd_sums / (10 * lengths)
    instability = scores / (100 * lengths)  # (10 / length) * score / 1000
    for i in np.flatnonzero(_on_boundary(kd_sums, 10 * lengths)).tolist():
        text = text_of(i)
        gravy[i] = sum(map(ProtParamData.kd.__getitem__, text)) / len(text)
    for i in np.flatnonzero(_on_boundary(scores, 100 * lengths)).tolist():
        instability[i] = _biopython_instability(text_of(i))
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
    out = {}
    for key in properties.KEYS:  # rounded as ``properties.compute`` rounds (``_round4``)
        values = columns_[key]
        finite = np.isfinite(values)
        if key == "instability_index":
            finite &= lengths >= 2  # no dipeptide
        out[key] = _round4(np.where(finite, values, 0.0))
        for i in np.flatnonzero(~finite).tolist():
            out[key][i] = None
    return out


_LIABILITY_KEYS = ("liability_count", *(columns.LIABILITY_COLUMNS[name] for name in (
    "n_glycosylation", "deamidation", "isomerization", "unpaired_cysteine", "oxidation")))
_KEYS = (*properties.KEYS, *_LIABILITY_KEYS)
_N, _P, _G, _S, _T, _D, _C = (ord(letter) for letter in "NPGSTDC")


def _liabilities_many(text: np.ndarray, owner: np.ndarray, size: int) -> list[list[int]]:
    """``_liabilities``' counts (without the total and oxidation) of chains given as their
    upper-case letters (concatenated) and the chain of each: a motif's letters all lie
    in one chain. N-X-S/T counts every start (overlapping ones too, as the lookahead)."""
    def per_chain(found: np.ndarray, starts: np.ndarray) -> np.ndarray:
        return np.bincount(starts[found], minlength=size)

    first, second, one = text[:-1], text[1:], owner[:-1] == owner[1:]
    after_n = (first == _N) & one
    g_or_s = (second == _G) | (second == _S)
    third = text[2:]
    sequon = (after_n[:-1] & (text[1:-1] != _P) & ((third == _S) | (third == _T))
              & (owner[:-2] == owner[2:]))
    return [per_chain(sequon, owner[:-2]).tolist(),
            per_chain(after_n & g_or_s, owner[:-1]).tolist(),
            per_chain((first == _D) & one & g_or_s, owner[:-1]).tolist(),
            (np.bincount(owner[text == _C], minlength=size) % 2).tolist()]


def _ascii_columns(distinct: list[str]) -> dict[str, list]:
    """``columns.values`` of each of ``distinct`` (ASCII text: upper case keeps each
    letter one letter) as columns, at once."""
    size = len(distinct)
    upper = np.frombuffer("".join(distinct).upper().encode("ascii"), np.uint8)
    owner = np.repeat(np.arange(size), [len(text) for text in distinct])
    glycosylation, deamidation, isomerization, cysteine = _liabilities_many(upper, owner, size)
    out = dict.fromkeys(properties.KEYS)
    standard = _STANDARD[upper]  # ``properties.cleaned``: the 20 residues kept
    kept = upper[standard]
    lengths = np.bincount(owner[standard], minlength=size)
    present = np.flatnonzero(lengths)
    if len(present):
        ends = np.cumsum(lengths[present])
        cleaned = kept.tobytes()

        def text_of(i: int) -> str:
            return cleaned[ends[i] - lengths[present[i]]:ends[i]].decode("ascii")

        measured = _properties(_CODE[kept], lengths[present], text_of)
    for key in properties.KEYS:
        if len(present) == size:
            out[key] = measured[key]
        else:
            out[key] = [None] * size
            for i, value in zip(present.tolist(), measured[key] if len(present) else (),
                                strict=True):
                out[key][i] = value
    out.update(zip(_LIABILITY_KEYS, (
        [sum(counts) for counts in zip(glycosylation, deamidation, isomerization, cysteine,
                                        strict=True)],
        glycosylation, deamidation, isomerization, cysteine, [None] * size), strict=True))
    return out


def columns_many(sequences: list[object]) -> dict[str, list[float | int | None]]:
    """Return ``columns.values`` of each of ``sequences`` as columns: a list per key of
    ``columns.KEYS`` (computed once per distinct sequence; at once for those in ASCII, the
    rest, whose upper case may change their length, one by one as ``columns.values``)."""
    capped = [s[:liabilities.MAX_RESIDUES] if isinstance(s, str) and s else None
              for s in sequences]
    distinct = list(dict.fromkeys(s for s in capped if s is not None))
    plain = [s for s in distinct if s.isascii()]
    found = _ascii_columns(plain) if plain else {key: [] for key in _KEYS}
    for sequence in distinct:
        if not sequence.isascii():
            plain.append(sequence)
            for key, value in columns.values(sequence).items():
                found[key].append(value)
    if len(plain) == len(capped):  # every chain distinct and present: in their order
        return {key: found[key] for key in _KEYS}
    at = {sequence: i for i, sequence in enumerate(plain)}
    rows = [at[s] if s is not None else len(plain) for s in capped]
    return {key: list(map([*found[key], None].__getitem__, rows)) for key in _KEYS}


def values_many(sequences: list[object]) -> list[dict[str, float | int | None]]:
    """Return ``columns.values`` of each of ``sequences`` (computed once per distinct one)."""
    listed = columns_many(sequences)
    return [dict(zip(listed, row, strict=True)) for row in zip(*listed.values(), strict=True)]
