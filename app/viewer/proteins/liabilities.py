"""Sequence liabilities of a designed chain (pure: no Flask, no I/O).

The motifs a protein engineer strikes out before ordering a design:

- ``n_glycosylation``: N-X-S/T with X not P (the sequon; overlapping ones all count);
- ``deamidation``: NG, NS;
- ``isomerization``: DG, DS (aspartate isomerisation);
- ``unpaired_cysteine``: an odd number of C in the chain (one cysteine is left without a
  disulfide partner; marked on every C, since which one is unpaired needs the structure);
- ``oxidation``: M and W. Here (the sequence alone) every M and W is a *potential* site;
  the index counts only the exposed ones, read from the structure by the epitope scan
  (``app.viewer.epitope.exposure``; the initiator Met 1 is never counted), and none
  before that scan has read the design.

``sites`` returns each motif's residues (0-based start, length) per liability; ``counts``
their numbers. Sequences are upper-cased and capped (``MAX_RESIDUES``) first: a hostile
100,000-letter string costs one bounded regex scan.
"""

from __future__ import annotations

import re

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
                 "or metal stress; it matters where they are solvent-exposed, which is not "
                 "checked here.",
}
# Longer chains than any designed protein are read up to here (the page shows the rest
# plain): bounds the work a hostile record can cause.
MAX_RESIDUES = 5_000

# Lookaheads so that overlapping motifs (NNSS: two sequons) are all found.
_MOTIFS = {
    "n_glycosylation": (re.compile(r"(?=N[^P][ST])"), 3),
    "deamidation": (re.compile(r"(?=N[GS])"), 2),
    "isomerization": (re.compile(r"(?=D[GS])"), 2),
    "oxidation": (re.compile(r"[MW]"), 1),
}


def clean(sequence: object) -> str:
    """Return the sequence as the analyses read it: text, upper case, at most MAX_RESIDUES."""
    return sequence[:MAX_RESIDUES].upper() if isinstance(sequence, str) else ""


def sites(sequence: object) -> dict[str, list[tuple[int, int]]]:
    """Return, per liability, the (start, length) of each motif found (0-based)."""
    text = clean(sequence)
    found = {name: [(m.start(), size) for m in pattern.finditer(text)]
             for name, (pattern, size) in _MOTIFS.items()}
    cysteines = [i for i, letter in enumerate(text) if letter == "C"]
    found["unpaired_cysteine"] = [(i, 1) for i in cysteines] if len(cysteines) % 2 else []
    return {name: found[name] for name in LIABILITIES}


def counts(sequence: object) -> dict[str, int]:
    """Return the number of sites per liability (unpaired cysteine: 1 when the C count is
    odd, else 0)."""
    found = sites(sequence)
    out = {name: len(places) for name, places in found.items()}
    out["unpaired_cysteine"] = 1 if found["unpaired_cysteine"] else 0
    return out


def marked(sequence: object) -> list[tuple[str, list[str]]]:
    """Return the sequence as runs of (text, liabilities covering it), for highlighting.

    Consecutive residues with the same liabilities form one run; runs without any have an
    empty list. Letters beyond MAX_RESIDUES form a last plain run.
    """
    if not isinstance(sequence, str):
        return []
    covering: list[list[str]] = [[] for _ in range(min(len(sequence), MAX_RESIDUES))]
    for name, places in sites(sequence).items():
        for start, size in places:
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
