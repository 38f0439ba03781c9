"""A run's warning codes in its frame: the most common listed apart, the rest grouped.

The results of a run may carry any number of distinct warning codes (a code that embeds
a detail, ``clash_res_<i>_<k>``, is a new code for nearly every result). The index lists
at most ``MAX_LISTED`` of them apart, the run's *listed* codes: those the viewer reads
itself (``ALWAYS_LISTED``: the API's structural-alert codes, which ``chem.verdict``
reconciles with RDKit, and ``domain.UNREADABLE_VALUES``) when the run has them, then the
others by the number of results that carry them, most first, ties by name. Every other
code is *grouped*: the facet shows the group once, with its count and the number of codes
in it, and ``warnings=other`` selects its results (``selections.warnings``). The rule is
this module's; the selection, the facets, the pages and the exports read it from here.

Each row holds one word (``WarningFlags.bits``): bit *i* is set when the row carries
``listed[i]``, the word's top bit (``other_bit``) when it carries a grouped code. The
word is the narrowest unsigned integer with a bit for each listed code and the top bit
(one byte for up to 7 listed codes, eight for ``MAX_LISTED``): at most eight bytes a
result whatever the number of distinct codes (a flag array per code was rows x codes:
804 MB of frame files for 12,000 results carrying 48,000 codes). A filter by a code is
one AND over the rows; the facet counts are one byte histogram per byte of the words.

``warning=<code>`` is exact for a listed code, and for any code of a run that groups
none (a code the run lacks: no row). For a code that is not listed in a run that groups
codes the index cannot tell whether the run has it: ``rows_with`` says so (None), and
the selection answers a 400 that names the rule.

Only the index groups: a result's own warnings (its page, the table, every export) are
its record's, every code in full.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from app import domain
from app.viewer.chem import verdict
from app.viewer.explore.index import frame_chemistry

# At most this many codes per run are listed apart (a uint64 word holds 63 and the group).
MAX_LISTED = 50
# The codes the viewer reads itself: listed whenever the run has them.
ALWAYS_LISTED = (*verdict.API_ALERT_CODES, domain.UNREADABLE_VALUES)
_ALWAYS = frozenset(ALWAYS_LISTED)
# A row's word, narrowest first: the top bit of each is the group's.
_WORDS = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64))
# Row i of this: which of the 8 bits of byte value i are set (least significant first).
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                           bitorder="little").astype(np.int64)


def codes_of(text: str | None) -> list[str]:
    """Return the codes of a row's stored text (``;a;b;``, ``index_rows``), in order and
    without repeats. A last code cut short by the column's width (no closing ``;``) is
    not one, as ``;code;`` never matched it."""
    if not text:
        return []
    return list(dict.fromkeys(code for code in text.split(";")[1:-1] if code))


@dataclass(frozen=True)
class WarningFlags:
    """Each row's listed codes and whether it carries a grouped one (module doc)."""

    bits: np.ndarray  # a word per row (``_WORDS``)
    listed: tuple[str, ...]  # bit i is listed[i]; most results first, ties by name
    grouped: int  # distinct codes of the run that are not listed

    @property
    def other_bit(self) -> int:
        """The bit of a row's word set when it carries a grouped code: the top one."""
        return self.bits.dtype.itemsize * 8 - 1

    def rows_with(self, code: str) -> np.ndarray | None:
        """Return which rows carry ``code``, or None when the index cannot tell (a code
        that is not listed, in a run that groups codes)."""
        if code in self.listed:
            return self._bit(self.listed.index(code))
        if self.grouped and code not in ALWAYS_LISTED:
            return None
        return np.zeros(len(self.bits), dtype=bool)  # the run has no such code

    def other_rows(self) -> np.ndarray:
        """Return which rows carry a grouped code."""
        return self._bit(self.other_bit)

    def _bit(self, bit: int) -> np.ndarray:
        return (self.bits & self.bits.dtype.type(1 << bit)) != 0

    def counts(self, keep: np.ndarray) -> tuple[dict[str, int], int]:
        """Return the kept rows carrying each listed code (codes none carries left out)
        and the kept rows carrying a grouped code."""
        chosen = np.compress(keep, self.bits)  # several times faster than bits[keep]
        per_bit = bit_counts(chosen, len(self.listed))
        listed = {code: int(per_bit[i]) for i, code in enumerate(self.listed) if per_bit[i]}
        top = chosen.dtype.type(self.other_bit)
        other = int(np.count_nonzero(chosen >> top)) if self.grouped else 0
        return listed, other


def bit_counts(words: np.ndarray, bits: int | None = None) -> np.ndarray:
    """Return how many of ``words`` (unsigned integers) have each of their first ``bits``
    bits set (every bit: None): a histogram of the values of each byte that holds them,
    then the bits of each value (a pass per byte, not per bit)."""
    size = words.dtype.itemsize
    bits = size * 8 if bits is None else bits
    octets = words.astype(words.dtype.newbyteorder("<"), copy=False).view(np.uint8) \
        .reshape(-1, size)
    counts = [np.bincount(octets[:, i], minlength=256) @ _BYTE_BITS
              for i in range(-(-bits // 8))]
    return np.concatenate(counts)[:bits] if counts else np.zeros(0, dtype=np.int64)


class FlagBuilder:
    """Collects the stored warning texts of a frame's rows, a chunk at a time (``add``),
    then makes their ``WarningFlags`` (``finish``).

    Each distinct text of a chunk is read once (most rows share a few texts), into the
    ids of its codes; the (row, code) pairs and each distinct code once are all it
    keeps, so a build's memory grows with the codes the rows carry, not rows x codes.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._rows: list[np.ndarray] = []
        self._codes: list[np.ndarray] = []
        self.size = 0

    def add(self, texts: list[str | None]) -> None:
        """Add the next rows' stored texts (``;a;b;``, None or "" for none)."""
        local: dict[str, int] = {}
        which = np.fromiter((local.setdefault(text or "", len(local)) for text in texts),
                            dtype=np.int64, count=len(texts))
        ids = self._ids
        parsed = [[ids.setdefault(code, len(ids)) for code in codes_of(text)]
                  for text in local]
        lengths = np.fromiter(map(len, parsed), dtype=np.int64, count=len(parsed))
        per_row = lengths[which]
        total = int(per_row.sum())
        if total:  # each row's codes, as pairs: the row repeated, its text's ids in turn
            flat = np.fromiter(itertools.chain.from_iterable(parsed), dtype=np.int64,
                               count=int(lengths.sum()))
            first = np.repeat((np.cumsum(lengths) - lengths)[which], per_row)
            within = np.arange(total) - np.repeat(np.cumsum(per_row) - per_row, per_row)
            self._rows.append(np.repeat(np.arange(self.size, self.size + len(texts)),
                                        per_row))
            self._codes.append(flat[first + within])
        self.size += len(texts)

    def finish(self) -> WarningFlags:
        """Return the flags of every row added."""
        empty = np.zeros(0, dtype=np.int64)
        rows = np.concatenate(self._rows) if self._rows else empty
        codes = np.concatenate(self._codes) if self._codes else empty
        return _flags(list(self._ids), rows, codes, self.size)


def _listed(names: list[str], counts: np.ndarray) -> list[int]:
    """Return the ids of the codes to list (module doc), most results first, ties by
    name: every ``ALWAYS_LISTED`` code present, then the most common others."""
    always = [i for i, name in enumerate(names) if name in _ALWAYS and counts[i]]
    others = np.where(counts > 0, counts, -1)  # a code no row carries is not the run's
    others[always] = -1
    room = MAX_LISTED - len(always)
    # Only the codes at least as common as the room-th most common need sorting.
    threshold = np.partition(others, len(others) - room)[len(others) - room] \
        if len(others) > room else 0
    candidates = np.flatnonzero(others >= max(int(threshold), 0)).tolist()
    ranked = sorted(candidates, key=lambda i: (-counts[i], names[i]))[:room]
    return sorted(always + ranked, key=lambda i: (-counts[i], names[i]))


def _flags(names: list[str], rows: np.ndarray, codes: np.ndarray, size: int) -> WarningFlags:
    """Return the flags of ``size`` rows given their (row, code id) pairs, ``names`` the
    codes by id (a code at most once per row)."""
    counts = np.bincount(codes, minlength=len(names))
    listed = _listed(names, counts)
    word = next(w for w in _WORDS if len(listed) < w.itemsize * 8)
    slot = np.full(len(names), word.itemsize * 8 - 1, dtype=word)
    slot[listed] = np.arange(len(listed), dtype=word)
    bits = np.zeros(size, dtype=word)
    np.bitwise_or.at(bits, rows, word.type(1) << slot[codes])
    return WarningFlags(bits, tuple(names[i] for i in listed),
                        int(np.count_nonzero(counts)) - len(listed))


def from_flag_arrays(flags: Mapping[str, np.ndarray], size: int) -> WarningFlags:
    """Return the flags of a frame saved with one boolean array per code (before)."""
    names = list(flags)
    rows = [np.flatnonzero(flags[name]) for name in names]
    codes = [np.full(len(found), i, dtype=np.int64) for i, found in enumerate(rows)]
    empty = np.zeros(0, dtype=np.int64)
    return _flags(names, np.concatenate(rows) if rows else empty,
                  np.concatenate(codes) if codes else empty, size)


def to_arrays(flags: WarningFlags) -> dict[str, np.ndarray]:
    """Return the arrays that save ``flags`` in a frame (``frame.to_arrays``' ``w:``)."""
    blob, ends = frame_chemistry.texts_to_arrays(flags.listed)
    return {"bits": flags.bits, "listed.blob": blob, "listed.ends": ends,
            "grouped": np.array([flags.grouped], dtype=np.int64)}


def from_arrays(saved: Mapping[str, np.ndarray], size: int) -> WarningFlags:
    """Return the flags ``to_arrays`` saved; ValueError for arrays that do not hold
    them (a saved frame is data)."""
    bits, grouped = saved["bits"], saved["grouped"]
    listed = tuple(frame_chemistry.texts_from_arrays(saved["listed.blob"],
                                                     saved["listed.ends"]))
    if bits.dtype not in _WORDS or bits.shape != (size,) or grouped.shape != (1,) \
            or len(listed) >= bits.dtype.itemsize * 8 or len(set(listed)) != len(listed):
        raise ValueError("a frame's warning flags do not fit its rows")
    return WarningFlags(bits, listed, max(int(grouped[0]), 0))

