"""Protein sequences for the demo: targets, designed binders and their variants.

Targets are human domains as in UniProt (sequences reproduced for demonstration; their
demo coordinates are idealised helix bundles, not the experimental folds). Designed
binders are helical miniproteins: amphipathic helices (hydrophobic residues at heptad
positions a and d, charged and polar residues elsewhere) joined by short loops whose
residues match their backbone torsions (glycine/asparagine for left-handed turns, proline
on polyproline stretches), which gives compositions close to those of natural proteins.
"""

from __future__ import annotations

import random
from bisect import bisect
from itertools import accumulate

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"

# Background frequencies of the 20 amino acids in UniProtKB/Swiss-Prot (percent).
NATURAL_FREQUENCIES = {
    "A": 8.25, "R": 5.53, "N": 4.06, "D": 5.45, "C": 1.37, "Q": 3.93, "E": 6.75,
    "G": 7.07, "H": 2.27, "I": 5.96, "L": 9.66, "K": 5.84, "M": 2.42, "F": 3.86,
    "P": 4.70, "S": 6.56, "T": 5.34, "W": 1.08, "Y": 2.92, "V": 6.87,
}

TARGETS = {
    # Interleukin-6 (P05231), mature chain residues 55-183: the target cropped for design,
    # as binder-design runs usually crop a target to the region around the epitope.
    "IL-6": (
        "ALAENNLNLPKMAEKDGCFQSGFNEETCLVKIITGLLEFEVYLEYLQNRFESSEEQARAVQMSTKVLIQFLQKKAKNL"
        "DAITTPDPTTNASLLTKLQAQNQWLQDMTTHLILRSFKEFLQSSLRALRQM"
    ),
    # Programmed cell death 1 ligand 1, IgV domain (Q9NZQ7, residues 18-134).
    "PD-L1": (
        "AFTVTVPKDLYVVEYGSNMTIECKFPVEKQLDLAALIVYWEMEDKNIIQFVHGEEDLKVQHSSYRQRARLLKDQLSL"
        "GNAALQITDVKLQDAGVYRCMISYGGADYKRITVKVNAPY"
    ),
    # Bromodomain-containing protein 4, first bromodomain (O60885, residues 44-168).
    "BRD4-BD1": (
        "NPPPPETSNPNKPKRQTNQLQYLLKVVLKTLWKHQFAWPFQQPVDAVKLNLPDYYKIIKTPMDMGTIKKRLENNYYW"
        "NAQECIQDFNTMFTNCYIYNKPGDDIVLMAEALEKLFLQKINELPTEE"
    ),
}

# What the structure files call each target (mmCIF _entity.pdbx_description).
TARGET_DESCRIPTIONS = {
    "IL-6": "Interleukin-6, residues 55-183 of the mature chain",
    "PD-L1": "Programmed cell death 1 ligand 1, IgV domain",
    "BRD4-BD1": "Bromodomain-containing protein 4, bromodomain 1",
}

# Heptad positions a and d face the partner helix; the rest face solvent.
_CORE = ("L", "I", "V", "A", "F", "M", "W", "Y")
_CORE_WEIGHTS = (30, 14, 10, 10, 8, 5, 2, 6)
_SURFACE = ("E", "K", "R", "A", "Q", "S", "D", "T", "N", "H", "Y", "G")
_SURFACE_WEIGHTS = (17, 15, 9, 14, 7, 8, 7, 6, 3, 3, 2, 1)
# (pool, cumulative weights, total): ``mutate`` draws as ``rng.choices(pool, weights)``
# does (same calls, same answers) without re-adding the weights per residue.
_CORE_DRAW = (_CORE, list(accumulate(_CORE_WEIGHTS)), float(sum(_CORE_WEIGHTS)))
_SURFACE_DRAW = (_SURFACE, list(accumulate(_SURFACE_WEIGHTS)), float(sum(_SURFACE_WEIGHTS)))
_LOOP_BY_REGION = {
    "alpha_l": (("G", "N", "D"), (8, 2, 1)),
    "ppii": (("P", "S", "E", "K", "T"), (5, 3, 2, 2, 2)),
    "beta": (("S", "T", "N", "D", "K", "E", "R", "G"), (4, 3, 2, 3, 2, 2, 1, 2)),
    "alpha": (("D", "N", "S", "E", "K", "P"), (4, 2, 3, 2, 2, 1)),
}
_N_CAP = (("S", "D", "T", "P", "E"), (4, 4, 2, 2, 2))


def helix_residue(rng: random.Random, heptad_position: int) -> str:
    """Return a residue for a helix position (0..6 is heptad a..g)."""
    if heptad_position in (0, 3):
        return rng.choices(_CORE, weights=_CORE_WEIGHTS)[0]
    return rng.choices(_SURFACE, weights=_SURFACE_WEIGHTS)[0]


def loop_residue(rng: random.Random, region: str) -> str:
    """Return a residue compatible with a loop residue's torsion region."""
    choices, weights = _LOOP_BY_REGION[region]
    return rng.choices(choices, weights=weights)[0]


def design_sequence(rng: random.Random, regions: tuple[str, ...]) -> str:
    """Return a designed sequence for a backbone whose residues are in ``regions``.

    ``regions`` is the per-residue "helix" or loop-region name of a built backbone, so a
    left-handed turn always gets a glycine-like residue and helices get heptad patterns.
    """
    out = []
    offset = rng.randrange(7)
    for i, region in enumerate(regions):
        if region == "helix":
            if i == 0 or regions[i - 1] != "helix":
                out.append(rng.choices(*_N_CAP)[0])
                offset = rng.randrange(7)
                continue
            out.append(helix_residue(rng, (i + offset) % 7))
        else:
            out.append(loop_residue(rng, region))
    if out and regions[0] != "helix":
        out[0] = "M"  # expression constructs start with the initiator methionine
    return "".join(out)


def mutable_positions(regions: tuple[str, ...]) -> list[int]:
    """Return the residues ``mutate`` may change: helical, not the first or last."""
    return [i for i, r in enumerate(regions) if r == "helix" and 0 < i < len(regions) - 1]


def mutate(rng: random.Random, sequence: str, regions: tuple[str, ...], count: int,
           positions: list[int] | None = None) -> str:
    """Return ``sequence`` with ``count`` surface/core-preserving point mutations.

    ``positions`` is ``mutable_positions(regions)`` when the caller has it already (it
    mutates one parent many times).
    """
    seq = list(sequence)
    if positions is None:
        positions = mutable_positions(regions)
    for i in rng.sample(positions, min(count, len(positions))):
        pool, cumulative, total = _CORE_DRAW if seq[i] in "LIVAFMWY" else _SURFACE_DRAW
        seq[i] = pool[bisect(cumulative, rng.random() * total, 0, len(pool) - 1)]
    return "".join(seq)


def cyclic_peptide(rng: random.Random, length: int) -> str:
    """Return a cyclic-peptide binder sequence (a beta hairpin closed head to tail)."""
    strand = "VITYFRWKESTQL"
    half = (length - 2) // 2
    left = "".join(rng.choice(strand) for _ in range(half))
    right = "".join(rng.choice(strand) for _ in range(length - 2 - half))
    return left + "NG" + right
