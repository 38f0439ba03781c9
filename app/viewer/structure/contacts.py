"""The one definition of a residue contact, read by the 3D page's interface, the epitope
scan and the compare page (pure numpy: no I/O).

Two residues of different chains are in contact when a heavy atom of one lies within
``CONTACT_CUTOFF`` (4.5 A) of a heavy atom of the other: the usual heavy-atom cutoff of
epitope and interface analyses (4-5 A covers hydrogen bonds, salt bridges and van der
Waals packing; 4.5 A is the common middle). A chain written without side chains (no
heavy atom beyond ``BACKBONE``, as backbone generators and our demo write designs) could
only touch through its backbone, so between such a chain and a polymer partner a residue
whose CB (CA for glycine) lies within ``CB_CONTACT`` (8 A, pDockQ's contact) of the
partner's CB counts too. The CB rule never applies to a ligand, nor between two chains
that both have side chains: there the atoms themselves say whether they touch.

``RULE`` says it in words from the constants (the pages and the glossary show it).
``interface_atoms`` (every polymer chain against every other chain) and ``touching`` (one
set of atoms against another) answer it with a cell grid: atoms are binned in cubes of
the cutoff's side, and only atoms of neighbouring cells holding more than one chain are
compared, so the work grows with the atoms (and the size of the interface), never with
their square or with the number of chains. Whatever a file holds, the work is bounded:
at most ``MAX_ATOMS`` heavy atoms (``TooLarge``), at most ``MAX_CANDIDATES_PER_ATOM``
compared pairs per atom (``TooCrowded``: atoms piled on one another, as no real
structure has them), finite coordinates within ``MAX_COORDINATE`` (``BadCoordinates``),
and the pairs compared ``_PAIRS_PER_BLOCK`` at a time (memory). Each of these is a
``NotComputed`` whose text says why, for the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from flask import Flask

CONTACT_CUTOFF = 4.5  # Angstroms, heavy atom to heavy atom
CB_CONTACT = 8.0  # Angstroms, CB to CB, where a chain has no side chains
BACKBONE = frozenset({"N", "CA", "C", "O", "CB", "OXT"})
# Heavy atoms whose contacts are computed: an 80,000-atom complex takes about a second;
# past this a file is larger than any complex a design run writes.
MAX_ATOMS = 150_000
# A protein packs about 0.05 heavy atoms per cubic Angstrom: about 5 in a cell of the
# 4.5 A cutoff, so an atom meets about 60 candidates in its neighbouring cells (more with
# alternate conformations). Far more means atoms piled on one another.
MAX_CANDIDATES_PER_ATOM = 1_000
# Beyond this an mmCIF coordinate is no molecule's (PDB files stop at 9,999.999).
MAX_COORDINATE = 100_000.0
_PAIRS_PER_BLOCK = 1 << 19  # atom pairs compared at once (~40 MB of temporaries)
# The cell itself and its 13 neighbours "after" it: each pair of neighbouring cells once.
_HALF_NEIGHBOURS = [(0, 0, 0)] + [(x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1)
                                  for z in (-1, 0, 1) if (x, y, z) > (0, 0, 0)]
# What the pages say of a contact (the 3D page's legends, the epitope panel, the glossary):
# written from the constants, so a page never states another number.
RULE = (f"a heavy atom within {CONTACT_CUTOFF:g}\u00a0\u00c5 of a heavy atom of the other "
        f"side (C\u03b2 within {CB_CONTACT:g}\u00a0\u00c5 of the other chain's C\u03b2 where "
        f"a chain was written without side chains)")


def beta_atom(residue):
    """Return the residue's CB (CA for glycine), or None: the atom of the CB rule."""
    return residue.find_atom("CB", "*") or residue.find_atom("CA", "*")


def has_side_chains(atom_names) -> bool:
    """Whether any of the atom names lies beyond the backbone (``BACKBONE``)."""
    return any(name not in BACKBONE for name in atom_names)


class NotComputed(ValueError):
    """The contacts of this structure are not computed; the text says why, for a page."""


class TooLarge(NotComputed):
    """More heavy atoms than ``MAX_ATOMS``."""

    def __init__(self, atoms: int):
        super().__init__(f"it has {atoms:,} heavy atoms, more than the {MAX_ATOMS:,} "
                         "whose contacts the viewer computes")


class TooCrowded(NotComputed):
    """Atoms piled on one another: more than ``MAX_CANDIDATES_PER_ATOM`` pairs to compare."""

    def __init__(self):
        super().__init__("its atoms are piled on one another, as in no real structure")


class BadCoordinates(NotComputed):
    """A coordinate that is not a number, or beyond ``MAX_COORDINATE``."""

    def __init__(self):
        super().__init__("some of its coordinates are not numbers or lie beyond "
                         f"{MAX_COORDINATE:,.0f}\u00a0\u00c5")


def close_pairs(points: np.ndarray, groups: np.ndarray, radius: float):
    """Yield (i, j) arrays of row indices: the pairs of atoms of different ``groups``
    within ``radius`` of each other, in blocks, each pair at least once in one order.

    Raises ``TooLarge``, ``TooCrowded`` or ``BadCoordinates`` (module docstring) before
    any pair is compared.
    """
    if len(points) > MAX_ATOMS:
        raise TooLarge(len(points))
    if len(points) < 2:
        return
    if not np.isfinite(points).all() or np.abs(points).max() > MAX_COORDINATE:
        raise BadCoordinates()
    # Cell (x, y, z) from 1, with an empty layer around: a neighbour's key never wraps.
    cells = np.floor((points - points.min(0)) / radius).astype(np.int64) + 1
    dims = cells.max(0) + 2
    keys = (cells[:, 0] * dims[1] + cells[:, 1]) * dims[2] + cells[:, 2]
    order = np.argsort(keys, kind="stable")
    occupied, starts, counts = np.unique(keys[order], return_index=True,
                                         return_counts=True)
    sorted_groups = groups[order]
    low = np.minimum.reduceat(sorted_groups, starts)
    high = np.maximum.reduceat(sorted_groups, starts)
    first, second = [], []
    for x, y, z in _HALF_NEIGHBOURS:
        wanted = occupied + (x * dims[1] + y) * dims[2] + z
        at = np.minimum(np.searchsorted(occupied, wanted), len(occupied) - 1)
        here = np.flatnonzero(occupied[at] == wanted)
        there = at[here]
        # Two cells of one and the same group hold no pair of different groups.
        mixed = ~((low[here] == high[here]) & (low[there] == high[there])
                  & (low[here] == low[there]))
        first.append(here[mixed])
        second.append(there[mixed])
    first, second = np.concatenate(first), np.concatenate(second)
    sizes = counts[first] * counts[second]
    if sizes.sum() > MAX_CANDIDATES_PER_ATOM * len(points):
        raise TooCrowded()
    ends = np.cumsum(sizes)
    begin = 0
    while begin < len(first):
        end = max(begin + 1, int(np.searchsorted(ends, ends[begin] - sizes[begin]
                                                 + _PAIRS_PER_BLOCK, side="right")))
        yield _block_pairs(points, groups, radius, order, starts, counts,
                           first[begin:end], second[begin:end])
        begin = end


def _block_pairs(points, groups, radius, order, starts, counts, first, second):
    """Return the pairs of one block of cell pairs (``close_pairs``)."""
    across = counts[second]
    sizes = counts[first] * across
    cell = np.repeat(np.arange(len(first)), sizes)
    within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    i = order[starts[first][cell] + within // across[cell]]
    j = order[starts[second][cell] + within % across[cell]]
    keep = groups[i] != groups[j]
    i, j = i[keep], j[keep]
    keep = ((points[i] - points[j]) ** 2).sum(1) <= radius ** 2
    return i[keep], j[keep]


def interface_atoms(points: np.ndarray, chains: np.ndarray, polymer: np.ndarray,
                    sides: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Return a bool per row of ``points``: a polymer atom in contact with another chain.

    ``chains`` is each atom's chain (an index into ``polymer`` and ``sides``, a bool per
    chain: a polymer, written with side chains), ``beta`` a bool per atom (the atom of
    the CB rule of a polymer residue). The rule is the module docstring's: any heavy atom
    of another chain (polymer or ligand) within ``CONTACT_CUTOFF``, or, between two
    polymer chains not both with side chains, beta atoms within ``CB_CONTACT``.
    """
    found = np.zeros(len(points), dtype=bool)
    for i, j in close_pairs(points, chains, CONTACT_CUTOFF):
        found[i[polymer[chains[i]]]] = True
        found[j[polymer[chains[j]]]] = True
    betas = np.flatnonzero(beta & polymer[chains])
    for i, j in close_pairs(points[betas], chains[betas], CB_CONTACT):
        i, j = betas[i], betas[j]
        rule = ~(sides[chains[i]] & sides[chains[j]])
        found[i[rule]] = True
        found[j[rule]] = True
    return found


def touching(points: np.ndarray, mine: np.ndarray, theirs: np.ndarray, beta: np.ndarray,
             cb_rule: bool) -> np.ndarray:
    """Return the indices in ``mine`` (rows of ``points``) in contact with ``theirs``.

    An atom of ``mine`` is in contact within ``CONTACT_CUTOFF`` of an atom of ``theirs``;
    with ``cb_rule`` a beta atom (``beta``, a bool per row) of ``mine`` also within
    ``CB_CONTACT`` of a beta atom of ``theirs`` (module docstring: the caller decides the
    rule from the chains' side chains and kinds). Raises ``NotComputed`` as
    ``close_pairs`` does.
    """
    if not len(mine) or not len(theirs):
        return mine[:0]
    rows = np.concatenate([mine, theirs])
    side = np.repeat(np.array([0, 1]), [len(mine), len(theirs)])
    found = np.zeros(len(rows), dtype=bool)
    for i, j in close_pairs(points[rows], side, CONTACT_CUTOFF):
        found[i[side[i] == 0]] = True
        found[j[side[j] == 0]] = True
    if cb_rule:
        betas = np.flatnonzero(beta[rows])
        for i, j in close_pairs(points[rows[betas]], side[betas], CB_CONTACT):
            i, j = betas[i], betas[j]
            found[i[side[i] == 0]] = True
            found[j[side[j] == 0]] = True
    return mine[found[:len(mine)]]


def init_app(app: Flask) -> None:
    """Offer the contact rule and its cutoffs to the templates."""
    app.jinja_env.globals.update(contact_rule=RULE, contact_cutoff=CONTACT_CUTOFF,
                                 cb_contact=CB_CONTACT)
