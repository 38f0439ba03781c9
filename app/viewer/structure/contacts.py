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

``RULE`` says it in words from the constants (the pages and the glossary show it);
``touching`` answers it for two sets of atoms, in blocks after a bounding-box cut, so a
large complex stays within memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from flask import Flask

CONTACT_CUTOFF = 4.5  # Angstroms, heavy atom to heavy atom
CB_CONTACT = 8.0  # Angstroms, CB to CB, where a chain has no side chains
BACKBONE = frozenset({"N", "CA", "C", "O", "CB", "OXT"})
_PAIRS_PER_BLOCK = 1 << 21  # atom pairs per distance block (~50 MB of float64 x 3)
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


def _near(points: np.ndarray, these: np.ndarray, box_of: np.ndarray, margin: float
          ) -> np.ndarray:
    """Return the indices in ``these`` within ``margin`` of the box around ``box_of``."""
    low = points[box_of].min(0) - margin
    high = points[box_of].max(0) + margin
    return these[((points[these] >= low) & (points[these] <= high)).all(1)]


def touching(points: np.ndarray, mine: np.ndarray, theirs: np.ndarray, beta: np.ndarray,
             cb_rule: bool) -> np.ndarray:
    """Return the indices in ``mine`` (rows of ``points``) in contact with ``theirs``.

    An atom of ``mine`` is in contact within ``CONTACT_CUTOFF`` of an atom of ``theirs``;
    with ``cb_rule`` a beta atom (``beta``, a bool per row) of ``mine`` also within
    ``CB_CONTACT`` of a beta atom of ``theirs`` (module docstring: the caller decides the
    rule from the chains' side chains and kinds).
    """
    if not len(mine) or not len(theirs):
        return mine[:0]
    margin = CB_CONTACT if cb_rule else CONTACT_CUTOFF
    mine = _near(points, mine, theirs, margin)
    if not len(mine):
        return mine
    theirs = _near(points, theirs, mine, margin)
    if not len(theirs):
        return mine[:0]
    their_beta = beta[theirs][None, :]
    rows = max(1, _PAIRS_PER_BLOCK // len(theirs))
    found = []
    for start in range(0, len(mine), rows):  # blocks: a large oligomer's full matrix
        part = mine[start:start + rows]       # would take gigabytes
        d2 = ((points[part, None, :] - points[None, theirs, :]) ** 2).sum(-1)
        close = (d2 <= CONTACT_CUTOFF ** 2).any(1)
        if cb_rule:
            close |= ((d2 <= CB_CONTACT ** 2) & their_beta).any(1) & beta[part]
        found.append(part[close])
    return np.concatenate(found) if found else mine[:0]


def init_app(app: Flask) -> None:
    """Offer the contact rule and its cutoffs to the templates."""
    app.jinja_env.globals.update(contact_rule=RULE, contact_cutoff=CONTACT_CUTOFF,
                                 cb_contact=CB_CONTACT)
