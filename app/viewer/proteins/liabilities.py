"""Sequence liabilities of a designed chain: the one definition every page and export
reads (pure: no Flask, no I/O).

The motifs a protein engineer strikes out before ordering a design:

- ``n_glycosylation``: N-X-S/T with X not P (the sequon; overlapping ones all count);
- ``deamidation``: NG, NS;
- ``isomerization``: DG, DS (aspartate isomerisation);
- ``unpaired_cysteine``: an odd number of C in the chain (one site: one cysteine is left
  without a disulfide partner; every C is marked, since which one needs the structure);
- ``oxidation``: M and W where the design's structure shows them solvent-exposed
  (``app.viewer.epitope.exposure``, read by the background epitope scan). The initiator
  Met 1 is never a site, neither counted nor marked: every design starts with it and it
  is cut off or sits at a free terminus. Until the scan has read the structure the
  oxidation count is unknown (None): the other four are final, the total leaves
  oxidation out and is *provisional* (the pages say "provisional until the structure is
  read"), and the M/W that could be sites are ``pending``, marked apart and not counted.

``assess(sequence, exposed)`` is that definition: the sites counted (what the result page
marks), the count per liability, the total and whether it is provisional. The result
page's header, its per-liability list, its marks and footnote, the index's columns (so the
table, the filters and the CSV/JSON exports) all come from it: ``proteins.columns`` and
``proteins.batch`` give ``assess(sequence)`` (oxidation unknown), the epitope scan stores
``exposed_sites`` and adds their number to the total once it has read the structure.
Sequences are upper-cased and capped (``MAX_RESIDUES``) first: a hostile 100,000-letter
string costs one bounded regex scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

LIABILITIES = ("n_glycosylation", "deamidation", "isomerization", "unpaired_cysteine",
               "oxidation")
LABELS = {
    "n_glycosylation": "N-glycosylation (N-X-S/T, X not P)",
    "deamidation": "Deamidation (NG, NS)",
    "isomerization": "Isomerisation (DG, DS)",
    "unpaired_cysteine": "Unpaired cysteine (odd number of C)",
    "oxidation": "Oxidation (exposed M, W; not the initiator Met 1)",
}
# What each liability does to a protein (the glossary's entries).
MEANINGS = {
    "n_glycosylation": "An asparagine in an N-X-S/T sequon (X not proline): eukaryotic "
                       "hosts (yeast, insect, mammalian cells) may attach a glycan there, "
                       "making the product heterogeneous and possibly hiding the binding site.",
    "deamidation": "Asparagine followed by glycine or serine turns into aspartate or "
                   "isoaspartate over days to weeks (faster at higher pH and temperature): "
                   "a charge change that can cost binding.",
    "isomerization": "Aspartate followed by glycine or serine turns into isoaspartate through "
                     "a succinimide, kinking the backbone: in a binding loop, affinity can drop.",
    "unpaired_cysteine": "An odd number of cysteines leaves at least one free thiol: "
                         "mispaired disulfides, covalent dimers and aggregation.",
    "oxidation": "Methionine (to its sulfoxide) and tryptophan oxidise under light, peroxide "
                 "or metal stress where they are solvent-exposed: counted are the M and W "
                 "with a relative solvent accessibility of at least 0.20 in the design's "
                 "structure (the initiator Met 1 never). Until the structure is read the "
                 "count is unknown and the total is provisional.",
}
# Longer chains than any designed protein are read up to here (the page shows the rest
# plain): bounds the work a hostile record can cause.
MAX_RESIDUES = 5_000

# Lookaheads so that overlapping motifs (NNSS: two sequons) are all found.
_MOTIFS = {
    "n_glycosylation": (re.compile(r"(?=N[^P][ST])"), 3),
    "deamidation": (re.compile(r"(?=N[GS])"), 2),
    "isomerization": (re.compile(r"(?=D[GS])"), 2),
}
_OXIDISABLE = re.compile(r"[MW]")
PROVISIONAL = "provisional until the structure is read"
# An M/W is exposed at this relative solvent accessibility or more (the common
# buried/exposed split; ``app.viewer.epitope.exposure`` measures it).
EXPOSED_RSA = 0.20


@dataclass(frozen=True)
class Assessment:
    """A designed chain's liabilities by the one definition (module docstring).

    ``sites``: per liability, the (0-based start, length) of each site counted (marked on
    the page); ``counts``: per liability, its number (oxidation None until the structure
    is read); ``total``: their sum (oxidation left out while unknown); ``pending``: the
    M/W that await the structure (marked apart, never counted).
    """

    sites: dict[str, list[tuple[int, int]]]
    counts: dict[str, int | None]
    total: int
    pending: list[tuple[int, int]]

    @property
    def provisional(self) -> bool:
        """Whether oxidation is still unknown (the total may grow once it is read)."""
        return self.counts["oxidation"] is None



def clean(sequence: object) -> str:
    """Return the sequence as the analyses read it: text, upper case, at most MAX_RESIDUES."""
    return sequence[:MAX_RESIDUES].upper() if isinstance(sequence, str) else ""


def can_oxidise(position: int, letter: str) -> bool:
    """Whether residue ``letter`` at 1-based ``position`` can be an oxidation site: an M
    or W, and not the initiator Met 1."""
    return letter in ("M", "W") and (position, letter) != (1, "M")


def oxidisable(sequence: object) -> list[int]:
    """Return the 0-based positions of the M/W that can be oxidation sites (not Met 1)."""
    text = clean(sequence)
    return [m.start() for m in _OXIDISABLE.finditer(text)
            if can_oxidise(m.start() + 1, m.group())]


def exposed_sites(sequence: object, exposed: Iterable[int]) -> tuple[int, ...]:
    """Return the 1-based positions of ``exposed`` that are oxidation sites of
    ``sequence``: exposed residues that are M/W there, Met 1 never."""
    candidates = {i + 1 for i in oxidisable(sequence)}
    return tuple(sorted({int(n) for n in exposed} & candidates))


def assess(sequence: object, exposed: Iterable[int] | None = None) -> Assessment:
    """Return the ``Assessment`` of ``sequence``; ``exposed`` (1-based positions of the
    structure's exposed residues, None: not read) decides the oxidation sites."""
    text = clean(sequence)
    found: dict[str, list[tuple[int, int]]] = {
        name: [(m.start(), size) for m in pattern.finditer(text)]
        for name, (pattern, size) in _MOTIFS.items()}
    cysteines = [i for i, letter in enumerate(text) if letter == "C"]
    found["unpaired_cysteine"] = [(i, 1) for i in cysteines] if len(cysteines) % 2 else []
    candidates = [(i, 1) for i in oxidisable(text)]
    counts: dict[str, int | None] = {name: len(places) for name, places in found.items()}
    counts["unpaired_cysteine"] = 1 if cysteines and len(cysteines) % 2 else 0
    if exposed is None:
        found["oxidation"], pending, counts["oxidation"] = [], candidates, None
    else:
        sites = set(exposed_sites(text, exposed))
        found["oxidation"] = [(i, 1) for i, _ in candidates if i + 1 in sites]
        pending, counts["oxidation"] = [], len(found["oxidation"])
    total = sum(n for n in counts.values() if n is not None)
    return Assessment({name: found[name] for name in LIABILITIES},
                      {name: counts[name] for name in LIABILITIES}, total, pending)


def marked(sequence: object, assessment: Assessment | None = None
           ) -> list[tuple[str, list[str]]]:
    """Return the sequence as runs of (text, liabilities covering it), for highlighting.

    The names are those of ``assessment``'s counted sites (``assess(sequence)`` when not
    given), and ``pending`` on an M/W awaiting the structure. Consecutive residues with
    the same names form one run; runs without any have an empty list. Letters beyond
    MAX_RESIDUES form a last plain run.
    """
    if not isinstance(sequence, str):
        return []
    assessment = assessment or assess(sequence)
    covering: list[list[str]] = [[] for _ in range(min(len(sequence), MAX_RESIDUES))]
    places = [*assessment.sites.items(), ("pending", assessment.pending)]
    for name, found in places:
        for start, size in found:
            for i in range(start, start + size):
                if name not in covering[i]:
                    covering[i].append(name)
    runs: list[tuple[str, list[str]]] = []
    for letter, names in zip(sequence, covering, strict=False):
        if runs and runs[-1][1] == names:
            runs[-1] = (runs[-1][0] + letter, names)
        else:
            runs.append((letter, names))
    if len(sequence) > MAX_RESIDUES:
        runs.append((sequence[MAX_RESIDUES:], []))
    return runs
