"""Protein backbone geometry: ideal bonds and angles, built atom by atom from torsions.

Coordinates come from internal coordinates with the NeRF construction (Parsons et al.,
J. Comput. Chem. 2005): every atom is placed from the three before it with a bond length,
a bond angle and a torsion. Bond lengths and angles are Engh & Huber ideal values, so every
structure has sound covalent geometry (N-CA 1.458 A, CA-C 1.525 A, C-N 1.329 A, C=O
1.231 A, consecutive CA-CA 3.80 A for trans peptides). An alpha helix is phi -57.8,
psi -47.0, which gives 98.9 degrees per residue (3.64 residues per turn), 1.54 A rise and a
CA radius of 2.29 A, the textbook alpha helix.

Pure Python on purpose (no numpy dependency for the app); structures are small and the
expensive parts (helix-bundle topologies) are cached by the callers.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

Vec = tuple[float, float, float]

N_CA, CA_C, C_N, C_O = 1.458, 1.525, 1.329, 1.231
ANGLE_N_CA_C, ANGLE_CA_C_N, ANGLE_C_N_CA, ANGLE_CA_C_O = 111.2, 116.2, 121.7, 120.5
HELIX = (-57.8, -47.0)
# Torsion regions a loop residue may take (phi, psi, spread in degrees): alpha-R, beta,
# polyproline II, and alpha-L (only for glycine/asparagine, see proteins.loop_residue).
LOOP_REGIONS = {
    "alpha": (-65.0, -40.0, 12.0),
    "beta": (-120.0, 130.0, 15.0),
    "ppii": (-70.0, 145.0, 10.0),
    "alpha_l": (75.0, 20.0, 10.0),
}


def sub(a: Vec, b: Vec) -> Vec:
    """Return a - b."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a: Vec, b: Vec) -> Vec:
    """Return a + b."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a: Vec, k: float) -> Vec:
    """Return k * a."""
    return (a[0] * k, a[1] * k, a[2] * k)


def dot(a: Vec, b: Vec) -> float:
    """Return the dot product."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    """Return the cross product."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Vec) -> float:
    """Return the length of a."""
    return math.sqrt(dot(a, a))


def unit(a: Vec) -> Vec:
    """Return a scaled to length 1."""
    return scale(a, 1.0 / norm(a))


def dist(a: Vec, b: Vec) -> float:
    """Return the distance between two points."""
    return norm(sub(a, b))


def min_dist2(points_a: list[Vec], points_b: list[Vec]) -> float:
    """Return the smallest squared distance between two point sets (inlined: hot loop)."""
    best = float("inf")
    for ax, ay, az in points_a:
        for bx, by, bz in points_b:
            d = (ax - bx) ** 2 + (ay - by) ** 2 + (az - bz) ** 2
            if d < best:
                best = d
    return best


def centroid(points: list[Vec]) -> Vec:
    """Return the mean of the points."""
    n = len(points)
    return (
        sum(p[0] for p in points) / n,
        sum(p[1] for p in points) / n,
        sum(p[2] for p in points) / n,
    )


def place(a: Vec, b: Vec, c: Vec, bond: float, angle: float, torsion: float) -> Vec:
    """Place atom d so that |cd| = bond, angle bcd = angle, torsion abcd = torsion (deg)."""
    ang, tor = math.radians(angle), math.radians(torsion)
    bc = unit(sub(c, b))
    n = unit(cross(sub(b, a), bc))
    m = cross(n, bc)
    dx = -bond * math.cos(ang)
    dy = bond * math.sin(ang) * math.cos(tor)
    dz = bond * math.sin(ang) * math.sin(tor)
    return (
        c[0] + bc[0] * dx + m[0] * dy + n[0] * dz,
        c[1] + bc[1] * dx + m[1] * dy + n[1] * dz,
        c[2] + bc[2] * dx + m[2] * dy + n[2] * dz,
    )


@dataclass(frozen=True)
class Residue:
    """Backbone atoms of one residue (CB is None for glycine positions)."""

    n: Vec
    ca: Vec
    c: Vec
    o: Vec
    cb: Vec


def first_residue() -> tuple[Vec, Vec, Vec]:
    """Return N, CA, C of a chain's first residue in a fixed frame."""
    n = (0.0, 0.0, 0.0)
    ca = (N_CA, 0.0, 0.0)
    ang = math.radians(180.0 - ANGLE_N_CA_C)
    c = (ca[0] + CA_C * math.cos(ang), CA_C * math.sin(ang), 0.0)
    return n, ca, c


def extend(chain: list[tuple[Vec, Vec, Vec]], psi_prev: float, phi: float) -> None:
    """Append N, CA, C of the next residue (trans peptide) to ``chain`` in place."""
    n0, ca0, c0 = chain[-1]
    n = place(n0, ca0, c0, C_N, ANGLE_CA_C_N, psi_prev)
    ca = place(ca0, c0, n, N_CA, ANGLE_C_N_CA, 180.0)
    c = place(c0, n, ca, CA_C, ANGLE_N_CA_C, phi)
    chain.append((n, ca, c))


def build_backbone(torsions: list[tuple[float, float]]) -> list[Residue]:
    """Build a chain's backbone (N, CA, C, O, CB) from per-residue (phi, psi)."""
    chain = [first_residue()]
    for i in range(1, len(torsions)):
        extend(chain, torsions[i - 1][1], torsions[i][0])
    return complete(chain, torsions)


def complete(chain: list[tuple[Vec, Vec, Vec]], torsions: list[tuple[float, float]]) -> list:
    """Add carbonyl O and ideal CB to N/CA/C triples."""
    residues = []
    for (n, ca, c), (_phi, psi) in zip(chain, torsions, strict=True):
        o = place(n, ca, c, C_O, ANGLE_CA_C_O, psi + 180.0)
        residues.append(Residue(n, ca, c, o, ideal_cb(n, ca, c)))
    return residues


def ideal_cb(n: Vec, ca: Vec, c: Vec) -> Vec:
    """Return the ideal CB of an L-amino acid from its N, CA and C."""
    b, cc = sub(ca, n), sub(c, ca)
    a = cross(b, cc)
    return (
        -0.58273431 * a[0] + 0.56802827 * b[0] - 0.54067466 * cc[0] + ca[0],
        -0.58273431 * a[1] + 0.56802827 * b[1] - 0.54067466 * cc[1] + ca[1],
        -0.58273431 * a[2] + 0.56802827 * b[2] - 0.54067466 * cc[2] + ca[2],
    )


def sample_loop(rng: random.Random, length: int) -> list[tuple[str, float, float]]:
    """Return ``length`` loop residues as (region, phi, psi) drawn from allowed regions."""
    names = ["alpha", "beta", "ppii", "alpha_l"]
    out = []
    for _ in range(length):
        region = rng.choices(names, weights=[2, 3, 3, 2])[0]
        phi, psi, spread = LOOP_REGIONS[region]
        out.append((region, phi + rng.gauss(0, spread), psi + rng.gauss(0, spread)))
    return out
