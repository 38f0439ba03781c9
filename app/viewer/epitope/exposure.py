"""Which methionines and tryptophans of a designed chain are solvent-exposed (pure).

Oxidation (M, W) is a liability where the residue is exposed. ``exposed(chain)`` computes
each M/W residue's solvent-accessible surface as Biopython's ``ShrakeRupley`` does (its
sphere points and radii; probe 1.4 A, 100 points a sphere) on the designed chain alone,
as it is in solution before it binds; the relative accessibility (RSA) is that area
over the residue's maximum in Tien et al. 2013 (Biopython's "Wilke" scale: M 224, W 285
A^2). A residue with RSA at least ``liabilities.EXPOSED_RSA`` (0.20, the common
buried/exposed split) is exposed.

Models without side chains (backbone and CB only, like our demo's) understate every
residue's area against a full-residue maximum: their exposed M/W come out lower, never
higher, so such a model reports fewer exposed sites, not spurious ones.

Which M/W can be sites at all is the liabilities' one rule (``liabilities.can_oxidise``):
the initiator methionine (an M at position 1) never is: it is the expression start every
design carries (our demo's and most design tools'), is cut off by methionine
aminopeptidase or sits in a tag, and is always at a free terminus, so counting it would
flag every design and ``liabilities=none`` would match nothing.
"""

from __future__ import annotations

import gemmi
import numpy as np
from Bio.Data.PDBData import residue_sasa_scales
from Bio.PDB.SASA import ShrakeRupley

from app.viewer.proteins import liabilities

EXPOSED_RSA = liabilities.EXPOSED_RSA
OXIDISABLE = ("MET", "TRP", "MSE")  # selenomethionine oxidises as methionine does
MAX_RESIDUES = 5_000  # the liabilities' cap: a longer chain is not measured
_MAX_ASA = residue_sasa_scales["Wilke"]
_LETTER = {"MET": "M", "TRP": "W"}
# Biopython's own sphere points and ProtOr radii, so the areas are exactly its areas.
_SHRAKE = ShrakeRupley()
_SPHERE = np.asarray(_SHRAKE._sphere, dtype=np.float64)
_RADII = _SHRAKE.radii_dict
_PROBE = _SHRAKE.probe_radius


def _atoms(chain: gemmi.Chain) -> tuple[np.ndarray, np.ndarray, list]:
    """Return the chain's polymer heavy atoms: coordinates, radii + probe, owners."""
    xyz, radii, owners = [], [], []
    for index, residue in enumerate(chain):
        if residue.entity_type != gemmi.EntityType.Polymer:
            continue
        number = residue.label_seq if residue.label_seq is not None else index + 1
        name = "MET" if residue.name == "MSE" else residue.name
        for atom in residue:
            element = atom.element.name.upper()
            if element in ("H", "D"):
                continue
            if element not in _RADII:
                raise KeyError(element)
            xyz.append(atom.pos.tolist())
            radii.append(_RADII[element] + _PROBE)
            owners.append((number, name))
    return np.array(xyz, dtype=np.float64).reshape(-1, 3), np.array(radii), owners


def _area(i: int, xyz: np.ndarray, radii: np.ndarray) -> float:
    """Return atom ``i``'s accessible area: Shrake-Rupley as Biopython computes it."""
    points = _SPHERE * radii[i] + xyz[i]
    gap = np.linalg.norm(xyz - xyz[i], axis=1)
    others = np.flatnonzero((gap < radii + radii[i]) & (np.arange(len(xyz)) != i))
    if len(others):
        d2 = ((points[:, None, :] - xyz[None, others, :]) ** 2).sum(-1)
        free = ~(d2 <= radii[others][None, :] ** 2).any(1)
    else:
        free = np.ones(len(points), dtype=bool)
    return float(free.sum()) * radii[i] * radii[i] * 4 * np.pi / len(_SPHERE)


def exposed(chain: gemmi.Chain) -> tuple[int, ...] | None:
    """Return the 1-based positions of the chain's exposed M/W (None: not measurable).

    Only the M/W atoms' areas are computed (against every atom of the chain), which
    gives Biopython's residue areas for them in milliseconds instead of a second.
    """
    if len(chain) > MAX_RESIDUES:
        return None
    if not any(residue.name in OXIDISABLE for residue in chain):
        return ()
    try:
        xyz, radii, owners = _atoms(chain)
    except KeyError:  # an element without a radius: not measurable
        return None
    areas: dict[tuple[int, str], float] = {}
    for i, owner in enumerate(owners):
        if liabilities.can_oxidise(owner[0], _LETTER.get(owner[1], "")):  # not Met 1
            areas[owner] = areas.get(owner, 0.0) + _area(i, xyz, radii)
    return tuple(number for (number, name), area in areas.items()
                 if area / _MAX_ASA[name] >= EXPOSED_RSA)
