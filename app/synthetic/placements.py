"""Where each demo design sits on its target: its own pose, at one of a few epitopes.

Every design gets its own rigid placement of the target, deterministic per design
(seeded by the caller's text), so designs of one backbone topology differ in the target
residues they contact and never compare at RMSD 0:

- an epitope *site*: one face of the target's helix bundle (its principal axes), turned
  toward the binder. Site 0 is the campaign's main epitope (about 70% of designs), sites
  1 and 2 are minor, "off-target" faces, so a contact-frequency strip shows one main
  epitope and two smaller ones;
- a small jitter: a rotation of up to ``MAX_TILT`` degrees and a shift across the
  interface of up to ``MAX_SHIFT`` A, so designs on one site differ in the residues
  they touch and in how their binders sit;
- then the target slides toward the binder along the binder's second axis until the
  nearest CA-CA pair is ``INTERFACE_CA_DISTANCE`` apart (``complexes.dock_target``, closer).

NumPy does the geometry, so placing a design adds little to seeding it.
"""

from __future__ import annotations

import math
import random

import numpy as np

from app.synthetic import geometry as g
from app.synthetic.bundles import Backbone

SITE_WEIGHTS = (0.7, 0.18, 0.12)  # main epitope, then two minor faces
MAX_TILT = 5.0  # degrees: more turns the packed helices into a single crossing point
# Nearest CA-CA across the interface. Closer than ``complexes.INTERFACE_CA_DISTANCE``:
# these models have no side chains, so packing the backbones nearer gives the 5-20
# residue interfaces (heavy atoms within 4.5 A, CB-CB within 8 A) real binders have.
INTERFACE_CA_DISTANCE = 5.2
MAX_SHIFT = 2.5  # Angstroms, across the interface


# id(backbone) -> (backbone, atoms, CA centroid, principal axes); keyed by identity, as
# ``complexes._DOCKED``: hashing a backbone's coordinates per design would cost more.
_FRAMES: dict[int, tuple] = {}


def _frame(backbone: Backbone) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the backbone's atoms (residues, 5, 3: N, CA, C, O, CB, a NaN CB when None),
    its CA centroid and principal axes (rows, longest first); cached per backbone."""
    hit = _FRAMES.get(id(backbone))
    if hit is not None and hit[0] is backbone:
        return hit[1:]
    nan = (math.nan,) * 3
    atoms = np.array([[r.n, r.ca, r.c, r.o, r.cb if r.cb is not None else nan]
                      for r in backbone.residues], dtype=float)
    cas = atoms[:, 1]
    centre = cas.mean(axis=0)
    _, _, axes = np.linalg.svd(cas - centre)
    _FRAMES[id(backbone)] = (backbone, atoms, centre, axes)
    return atoms, centre, axes


def _basis(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Return the orthonormal basis (columns) with ``first``, ``second`` made orthogonal."""
    a = first / np.linalg.norm(first)
    b = second - a * (a @ second)
    b /= np.linalg.norm(b)
    return np.column_stack((a, b, np.cross(a, b)))


def _tilt(rng: random.Random) -> np.ndarray:
    """Return a rotation of up to ``MAX_TILT`` degrees about a random axis."""
    axis = np.array([rng.gauss(0, 1) for _ in range(3)])
    axis /= np.linalg.norm(axis)
    angle = math.radians(rng.uniform(-MAX_TILT, MAX_TILT))
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _slide(fixed: np.ndarray, moving: np.ndarray, u: np.ndarray, contact: float) -> float:
    """Return how far along ``u`` ``moving`` must go so no pair is closer than ``contact``
    (``complexes._slide_distance``, every pair at once)."""
    w = fixed[:, None, :] - moving[None, :, :]
    wu = w @ u
    disc = wu * wu - np.einsum("ijk,ijk->ij", w, w) + contact * contact
    inside = disc > 0
    return float((wu[inside] + np.sqrt(disc[inside])).max()) if inside.any() else 0.0


def site_of(seed: str) -> int:
    """Return the epitope site (0 main, 1-2 minor) the design seeded by ``seed`` binds."""
    return random.Random(f"site:{seed}").choices(  # noqa: S311 - demo data, not secrets
        range(len(SITE_WEIGHTS)), SITE_WEIGHTS)[0]


def place_target(binder: Backbone, target: Backbone, seed: str
                 ) -> tuple[tuple, np.ndarray, np.ndarray]:
    """Return the target's residues placed against ``binder`` for the design ``seed``.

    Also returns the rigid motion (rotation R, translation t: x -> R x + t) that moved
    the target from its own frame, for anything attached to it (a glycan).
    """
    rng = random.Random(f"pose:{seed}")  # noqa: S311 - demo data, not secrets
    b_atoms, b_centre, b_axes = _frame(binder)
    atoms, t_centre, t_axes = _frame(target)
    # The site is a face of the target: its second or third axis, either way round.
    site = (t_axes[1], -t_axes[1], t_axes[2])[site_of(seed)]
    approach = b_axes[1]  # the target comes in from the binder's side, helices parallel
    rotation = _basis(b_axes[0], -approach) @ _basis(t_axes[0], site).T
    rotation = _tilt(rng) @ rotation
    across = b_axes[0] * rng.uniform(-MAX_SHIFT, MAX_SHIFT) + b_axes[2] * rng.uniform(
        -MAX_SHIFT, MAX_SHIFT)
    placed = (atoms - t_centre) @ rotation.T + b_centre + across
    distance = _slide(b_atoms[:, 1], placed[:, 1], approach, INTERFACE_CA_DISTANCE)
    shift = b_centre + across + approach * distance
    placed = (atoms - t_centre) @ rotation.T + shift
    translation = shift - rotation @ t_centre
    return _residues(placed), rotation, translation


def _residues(atoms: np.ndarray) -> tuple:
    """Return ``geometry.Residue``s of (residues, 5, 3) coordinates (NaN CB: None)."""
    return tuple(g.Residue(tuple(n), tuple(ca), tuple(c), tuple(o),
                           None if cb[0] != cb[0] else tuple(cb))  # NaN: no CB
                  for n, ca, c, o, cb in atoms.tolist())


def binder_atoms(binder: Backbone) -> np.ndarray:
    """Return the binder's heavy atoms, (n, 3) (for clash checks)."""
    atoms = _frame(binder)[0].reshape(-1, 3)
    return atoms[~np.isnan(atoms[:, 0])]


def moved(points, rotation: np.ndarray, translation: np.ndarray) -> tuple:
    """Return ``points`` (x, y, z tuples) moved by the rigid motion of ``place_target``."""
    xyz = np.asarray(points, dtype=float) @ rotation.T + translation
    return tuple(tuple(p) for p in xyz.tolist())
