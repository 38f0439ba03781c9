"""Superposing two models on a chain: Kabsch on the CA atoms both have.

Pure numpy. The result is the rotation and translation that move the second model onto
the first (as MolViewSpec's ``transform`` node takes them) and the RMSD after the fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Fit:
    """Move model B onto A: ``x_a = rotation @ x_b + translation``; RMSD in Angstroms."""

    rotation: tuple[tuple[float, ...], ...]  # 3 x 3, row-major
    translation: tuple[float, float, float]
    rmsd: float
    pairs: int

    def mvs_rotation(self) -> list[float]:
        """Return the rotation as MolViewSpec wants it: 9 numbers, column-major."""
        return [self.rotation[r][c] for c in range(3) for r in range(3)]

    def mvs_transform(self) -> dict:
        """Return the params of the MolViewSpec ``transform`` node that applies this fit."""
        return {"rotation": self.mvs_rotation(), "translation": list(self.translation)}


def kabsch(fixed: np.ndarray, moving: np.ndarray) -> Fit:
    """Return the least-squares rigid fit of ``moving`` onto ``fixed`` (both N x 3).

    Kabsch (1976) with the determinant check, so the answer is a proper rotation,
    never a reflection.
    """
    if fixed.shape != moving.shape or fixed.ndim != 2 or fixed.shape[1] != 3:
        raise ValueError("kabsch needs two N x 3 arrays of the same shape")
    if len(fixed) < 3:
        raise ValueError("kabsch needs at least 3 pairs of points")
    fixed_centre, moving_centre = fixed.mean(0), moving.mean(0)
    p, q = moving - moving_centre, fixed - fixed_centre
    u, _s, vt = np.linalg.svd(p.T @ q)
    d = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
    rotation = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    translation = fixed_centre - rotation @ moving_centre
    moved = moving @ rotation.T + translation
    rmsd = float(np.sqrt(((moved - fixed) ** 2).sum(1).mean()))
    return Fit(tuple(tuple(float(v) for v in row) for row in rotation),
               tuple(float(v) for v in translation), rmsd, len(fixed))


def fit_on_chain(ca_a: dict, ca_b: dict, chain_a: str, chain_b: str) -> Fit | None:
    """Fit model B onto A on a chain, pairing CA atoms by residue number.

    ``ca_a``/``ca_b`` map (chain, label_seq_id) to coordinates. Returns None when fewer
    than 3 residues pair up.
    """
    keys = sorted(seq for chain, seq in ca_a if chain == chain_a and (chain_b, seq) in ca_b)
    if len(keys) < 3:
        return None
    fixed = np.array([ca_a[(chain_a, s)] for s in keys], dtype=np.float64)
    moving = np.array([ca_b[(chain_b, s)] for s in keys], dtype=np.float64)
    return kabsch(fixed, moving)


def rmsd_after(fit: Fit, ca_a: dict, ca_b: dict, chain_a: str, chain_b: str
               ) -> tuple[float, int] | None:
    """Return the RMSD of a chain of B, moved by ``fit``, against that chain of A, and pairs.

    No new fit: with the targets superposed, this says how differently the two binders
    sit. Only for chains of equal length (two designs of different lengths pair up
    residues that do not correspond); None otherwise or with fewer than 3 pairs.
    """
    own_a = sorted(seq for chain, seq in ca_a if chain == chain_a)
    own_b = sorted(seq for chain, seq in ca_b if chain == chain_b)
    if own_a != own_b or len(own_a) < 3:
        return None
    fixed = np.array([ca_a[(chain_a, s)] for s in own_a], dtype=np.float64)
    moving = np.array([ca_b[(chain_b, s)] for s in own_a], dtype=np.float64)
    moved = moving @ np.array(fit.rotation).T + np.array(fit.translation)
    return float(np.sqrt(((moved - fixed) ** 2).sum(1).mean())), len(own_a)
