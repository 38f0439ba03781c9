"""Sequence families of designed chains for ``diverse=N`` (pure: no Flask, no I/O).

Identity of two designed chains: the identical positions of their global alignment
(Needleman-Wunsch with BLOSUM62, gap open -10, extend -0.5: EMBOSS needle's defaults, by
Biopython's ``PairwiseAligner``) divided by the length of the shorter chain, so a
truncated redesign of a chain is in its family.

Families are greedy in rank order (the CD-HIT way): the best-ranked design founds the
first family; each next design joins the first family whose founder it is at least
``THRESHOLD`` identical to, else founds a new one while fewer than ``wanted`` exist. 50%:
above it two chains are almost surely homologues with the same fold (UniRef50 clusters at
it), and redesigns of one backbone (ProteinMPNN on the same scaffold typically keeps
50-70% of it) stay one family; at 70% those redesigns would be "different families" and
the top 10 could be ten sequences of one backbone.

Work is bounded: chains are aligned up to ``MAX_ALIGNED`` residues (designed binders are a
few hundred, so one alignment stays cheap), identical sequences are aligned
once, and ``group`` stops at its ``deadline`` (``complete`` then says the counts are of
the designs examined so far).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from Bio import Align
from Bio.Align import substitution_matrices

THRESHOLD = 0.5
MAX_ALIGNED = 1000
SECONDS = 5.0


@lru_cache(maxsize=1)
def aligner() -> Align.PairwiseAligner:
    """Return the global aligner (BLOSUM62, gap open -10, extend -0.5)."""
    return Align.PairwiseAligner(
        mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
        open_gap_score=-10.0, extend_gap_score=-0.5)


def _clean(sequence: str) -> str:
    # BLOSUM62 knows the 20 amino acids and B, Z, X, *: any other letter is read as X.
    text = sequence[:MAX_ALIGNED].upper()
    return "".join(c if c in "ACDEFGHIKLMNPQRSTVWYBZX" else "X" for c in text)


def identity(first: str, second: str) -> float:
    """Return the identical aligned positions over the shorter chain's length (0 to 1)."""
    a, b = _clean(first), _clean(second)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    alignment = aligner().align(a, b)[0]
    return alignment.counts().identities / min(len(a), len(b))


@dataclass
class Families:
    """``founders``: the position (in the input's order) of each family's founder, in
    order; ``sizes``: how many examined designs are in each; ``examined``: how many
    designs were read; ``complete``: whether all were (no deadline reached)."""

    founders: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    examined: int = 0
    complete: bool = True


def group(sequences: Iterable[str | None], wanted: int, *, threshold: float = THRESHOLD,
          seconds: float = SECONDS) -> Families:
    """Return the greedy families of ``sequences`` (in rank order; None: no designed
    chain, in no family), founding at most ``wanted`` of them (see the module docstring)."""
    out = Families()
    founders: list[str] = []
    known: dict[str, int] = {}  # sequence -> its family (-1: none), aligned once
    deadline = time.monotonic() + seconds
    for position, sequence in enumerate(sequences):
        if time.monotonic() > deadline:
            out.complete = False
            break
        out.examined = position + 1
        if not sequence:
            continue
        key = _clean(sequence)
        if key not in known:
            known[key] = next((i for i, founder in enumerate(founders)
                               if identity(founder, key) >= threshold), -1)
            if known[key] < 0 and len(founders) < wanted:
                known[key] = len(founders)
                founders.append(key)
                out.founders.append(position)
                out.sizes.append(0)
        if known[key] >= 0:
            out.sizes[known[key]] += 1
    return out
