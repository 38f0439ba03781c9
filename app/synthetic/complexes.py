"""Assembling demo models: binder and target chains side by side, ligands in contact.

Backbones come from ``bundles`` (cached per topology); here they are paired. The target
is slid toward the binder along the axis direction that brings the two centroids closest
until the nearest CA-CA pair is at ``INTERFACE_CA_DISTANCE``, which gives an interface of
packed helices about 10 A apart. A ligand is slid onto the protein the same way until its
nearest heavy atom is ``LIGAND_CONTACT`` from a CB atom.
"""

from __future__ import annotations

import functools
import math
import random

from app.synthetic import geometry as g
from app.synthetic.bundles import Backbone, Segment, build_topology

INTERFACE_CA_DISTANCE = 6.5
LIGAND_CONTACT = 3.8
_DIRECTIONS = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0),
               (0.0, 0.0, 1.0), (0.0, 0.0, -1.0))


def segments_for_length(rng: random.Random, length: int, max_helix: int = 26) -> tuple:
    """Return a helix-bundle topology (termini, helices, loops) of exactly ``length``."""
    n_term, c_term = rng.randint(1, 3), rng.randint(1, 3)
    helices = max(2, math.ceil((length - n_term - c_term) / (max_helix + 4)))
    loops = [rng.randint(3, 5) for _ in range(helices - 1)]
    helix_total = length - n_term - c_term - sum(loops)
    sizes = [helix_total // helices] * helices
    for i in range(helix_total - sum(sizes)):
        sizes[i] += 1
    for i in range(helices - 1):  # unequal helices look designed, not stamped out
        shift = rng.randint(-2, 2)
        sizes[i] += shift
        sizes[i + 1] -= shift
    segments = [Segment("C", n_term)]
    for i, size in enumerate(sizes):
        if i:
            segments.append(Segment("L", loops[i - 1]))
        segments.append(Segment("H", size))
    segments.append(Segment("C", c_term))
    return tuple(segments)


@functools.cache
def hairpin_backbone(length: int) -> Backbone:
    """Return a two-stranded hairpin for a cyclic peptide of ``length`` (type I' turn).

    The ring closure bond itself is not modelled: the termini sit across the hairpin.
    """
    half = (length - 2) // 2
    torsions = [(-120.0, 130.0)] * half + [(60.0, 30.0), (90.0, 0.0)]
    torsions += [(-120.0, 130.0)] * (length - 2 - half)
    residues = g.build_backbone(torsions)
    regions = ("beta",) * half + ("alpha_l", "alpha_l") + ("beta",) * (length - 2 - half)
    return Backbone(tuple(residues), "L" * length, regions)


def _slide_distance(fixed: list[g.Vec], moving: list[g.Vec], u: g.Vec, contact: float) -> float:
    """Return how far along ``u`` the moving set must sit so no pair is closer than contact.

    For each pair, |w - D u| < contact holds on an interval of D; coming from far away,
    the first contact is the largest upper end of those intervals.
    """
    best = 0.0
    c2 = contact * contact
    for f in fixed:
        for m in moving:
            w = (f[0] - m[0], f[1] - m[1], f[2] - m[2])
            wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2]
            disc = wu * wu - (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) + c2
            if disc > 0:
                best = max(best, wu + math.sqrt(disc))
    return best


def _translate_residues(residues, shift: g.Vec) -> tuple:
    return tuple(
        g.Residue(g.add(r.n, shift), g.add(r.ca, shift), g.add(r.c, shift), g.add(r.o, shift),
                  g.add(r.cb, shift))
        for r in residues
    )


# (id(binder), id(target)) -> (binder, target, docked residues); keyed by identity because
# hashing a backbone's coordinates on every call would cost more than the lookup saves.
_DOCKED: dict[tuple[int, int], tuple] = {}


def dock_target(binder: Backbone, target: Backbone) -> tuple:
    """Return the target's residues moved into contact with the binder (cached per pair)."""
    hit = _DOCKED.get((id(binder), id(target)))
    if hit is not None and hit[0] is binder and hit[1] is target:
        return hit[2]
    docked = _dock(binder, target)
    _DOCKED[(id(binder), id(target))] = (binder, target, docked)
    return docked


def _dock(binder: Backbone, target: Backbone) -> tuple:
    binder_cas = [r.ca for r in binder.residues]
    target_cas = [r.ca for r in target.residues]
    to_binder = g.sub(g.centroid(binder_cas), g.centroid(target_cas))
    centred = [g.add(p, to_binder) for p in target_cas]
    # Every third CA is enough to find the contact distance; the last check is exact.
    distances = [
        (_slide_distance(binder_cas[::3], centred[::3], u, INTERFACE_CA_DISTANCE), u)
        for u in _DIRECTIONS
    ]
    distance, u = min(distances)
    distance = _slide_distance(binder_cas, centred, u, INTERFACE_CA_DISTANCE)
    return _translate_residues(target.residues, g.add(to_binder, g.scale(u, distance)))


@functools.cache
def protein_backbone(segments: tuple, seed: int) -> Backbone:
    """Return the (cached) backbone of a topology."""
    return build_topology(segments, seed)


def _sphere_directions() -> list[g.Vec]:
    """Return the 26 unit vectors toward the faces, edges and corners of a cube."""
    return [g.unit((x, y, z)) for x in (-1.0, 0.0, 1.0) for y in (-1.0, 0.0, 1.0)
            for z in (-1.0, 0.0, 1.0) if (x, y, z) != (0.0, 0.0, 0.0)]


# id(protein) -> (protein, site direction): one binding site per protein, so every ligand
# of a series lands in the same place, as docked analogs do.
_SITES: dict[int, tuple] = {}


def binding_site(protein: Backbone, xyz: list[g.Vec]) -> g.Vec:
    """Return the approach direction whose contact pose is the most buried (cached).

    The probe ligand is slid in from each of 26 directions until it touches; the pose
    with the most ligand-atom/CB pairs within 6 A lies in the groove a pocket would be in.
    """
    hit = _SITES.get(id(protein))
    if hit is not None and hit[0] is protein:
        return hit[1]
    cbs = [r.cb for r in protein.residues]
    to_protein = g.sub(g.centroid(cbs), g.centroid(xyz))
    centred = [g.add(p, to_protein) for p in xyz]
    best, best_count = (1.0, 0.0, 0.0), -1
    for u in _sphere_directions():
        shift = g.scale(u, _slide_distance(cbs, centred, u, LIGAND_CONTACT))
        pose = [g.add(p, shift) for p in centred]
        count = sum(1 for p in pose for cb in cbs if g.dist(p, cb) < 6.0)
        if count > best_count:
            best, best_count = u, count
    _SITES[id(protein)] = (protein, best)
    return best


def place_ligand(protein: Backbone, xyz: list[g.Vec], probe: list[g.Vec] | None = None) -> tuple:
    """Return ligand coordinates slid into contact at the protein's binding site.

    The site is chosen once per protein with ``probe`` (the first ligand placed when not
    given), then every ligand approaches from that direction until its nearest heavy
    atom is ``LIGAND_CONTACT`` from a CB atom.
    """
    u = binding_site(protein, probe or xyz)
    cbs = [r.cb for r in protein.residues]
    to_protein = g.sub(g.centroid(cbs), g.centroid(xyz))
    centred = [g.add(p, to_protein) for p in xyz]
    distance = _slide_distance(cbs, centred, u, LIGAND_CONTACT)
    shift = g.scale(u, distance)
    return tuple(g.add(p, shift) for p in centred)


def plddt(rng: random.Random, ss: str, confidence: float) -> tuple[float, ...]:
    """Return per-residue pLDDT (0-100): helices above the mean, loops and termini below."""
    n = len(ss)
    out = []
    for i, s in enumerate(ss):
        value = 100.0 * confidence + (4.0 if s == "H" else -8.0) + rng.gauss(0, 2.5)
        if i < 3 or i >= n - 3:
            value -= 12.0
        out.append(round(min(98.5, max(20.0, value)), 2))
    return tuple(out)


def _rotate_onto(v: g.Vec, target: g.Vec, points: list[g.Vec], origin: g.Vec) -> list[g.Vec]:
    """Rotate ``points`` about ``origin`` so that direction ``v`` points along ``target``."""
    a, b = g.unit(v), g.unit(target)
    axis = g.cross(a, b)
    s, c = g.norm(axis), g.dot(a, b)
    if s < 1e-9:
        return list(points) if c > 0 else [g.sub(g.scale(origin, 2.0), p) for p in points]
    k = g.scale(axis, 1.0 / s)
    out = []
    for p in points:  # Rodrigues' rotation formula
        r = g.sub(p, origin)
        rotated = g.add(g.add(g.scale(r, c), g.scale(g.cross(k, r), s)),
                        g.scale(k, g.dot(k, r) * (1.0 - c)))
        out.append(g.add(origin, rotated))
    return out


def place_glycan(residues: tuple, index: int, xyz: list[g.Vec], anchor: int,
                 neighbours: tuple = ()) -> tuple:
    """Return glycan coordinates with atom ``anchor`` (C1) beside residue ``index``'s CB.

    The anchor sits where an asparagine's ND2-C1 linkage would put it (about 3.7 A out
    from CB, away from the protein), and the sugar points away from the protein; it
    steps further out if that would clash with the protein or ``neighbours`` (residues of
    other chains).
    """
    cb = residues[index].cb
    outward = g.unit(g.sub(cb, g.centroid([r.ca for r in residues])))
    anchored = [g.sub(p, xyz[anchor]) for p in xyz]
    body = g.centroid(anchored)
    oriented = _rotate_onto(body, outward, anchored, (0.0, 0.0, 0.0))
    atoms = [a for r in (*residues, *neighbours) for a in (r.n, r.ca, r.c, r.o, r.cb)]
    distance = 3.7
    while True:  # step outward until no protein atom is within 3 A
        placed = [g.add(g.add(cb, g.scale(outward, distance)), p) for p in oriented]
        if g.min_dist2(placed, atoms) > 9.0 or distance > 12:
            return tuple(placed)
        distance += 0.5


