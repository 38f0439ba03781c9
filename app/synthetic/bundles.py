"""Helix-bundle backbones: helices joined by loops chosen so the helices pack.

A topology is a list of segments: helices (ideal alpha torsions) and loops. Each loop's
torsions are sampled from allowed Ramachandran regions many times and the candidate that
makes the next helix pack best against the ones already built (antiparallel, axis to axis
about 10 A, no clashes) wins. Scoring needs only the loop atoms plus the first residue of
the next helix, because an ideal helix's axis is a constant in that residue's local frame.

Building a topology costs tens of milliseconds, so callers cache it by its segment list
and reuse the coordinates for every sequence that fits it.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

from app.synthetic import geometry as g

CANDIDATES_PER_LOOP = 120
PACKING_DISTANCE = 9.8  # A between helix axes in a packed bundle
CLASH_DISTANCE = 8.0  # A: helix axes closer than this would collide


@dataclass(frozen=True)
class Segment:
    """``kind`` is "H" (helix), "L" (loop) or "C" (terminal coil); ``length`` residues."""

    kind: str
    length: int


@dataclass(frozen=True)
class Backbone:
    """Built residues plus, per residue, its secondary structure and loop region."""

    residues: tuple
    ss: str  # one letter per residue: H helix, L loop/coil
    regions: tuple  # "helix" or the loop region name ("alpha_l" needs Gly/Asn)


def _frame(n: g.Vec, ca: g.Vec, c: g.Vec) -> tuple[g.Vec, g.Vec, g.Vec]:
    """Return the orthonormal frame of a residue (origin CA)."""
    e1 = g.unit(g.sub(c, ca))
    v = g.sub(n, ca)
    e2 = g.unit(g.sub(v, g.scale(e1, g.dot(v, e1))))
    return e1, e2, g.cross(e1, e2)


def _to_local(frame, v: g.Vec) -> g.Vec:
    return (g.dot(v, frame[0]), g.dot(v, frame[1]), g.dot(v, frame[2]))


def _to_global(frame, v: g.Vec) -> g.Vec:
    e1, e2, e3 = frame
    return g.add(g.add(g.scale(e1, v[0]), g.scale(e2, v[1])), g.scale(e3, v[2]))


@functools.cache
def _helix_axis_local() -> tuple[g.Vec, g.Vec]:
    """Return a helix residue's axis direction and axis foot point in its local frame."""
    residues = g.build_backbone([g.HELIX] * 30)
    cas = [r.ca for r in residues]
    # 18 residues are exactly five turns, so their centroid lies on the axis.
    direction = g.unit(g.sub(cas[23], cas[5]))
    center = g.centroid(cas[5:23])
    foot = g.add(center, g.scale(direction, g.dot(g.sub(cas[5], center), direction)))
    r5 = residues[5]
    frame = _frame(r5.n, r5.ca, r5.c)
    return _to_local(frame, direction), _to_local(frame, g.sub(foot, r5.ca))


def _axis_points(start: g.Vec, direction: g.Vec, length: int) -> list[g.Vec]:
    """Return points every ~3 A along a helix axis of ``length`` residues."""
    span = (length - 1) * 1.5
    steps = max(2, int(span / 3.0) + 1)
    return [g.add(start, g.scale(direction, span * i / (steps - 1))) for i in range(steps)]


def _min_dist(points_a: list[g.Vec], points_b: list[g.Vec]) -> float:
    """Return the smallest distance between two point sets."""
    return math.sqrt(g.min_dist2(points_a, points_b))


def _score(axis, direction, helices, loop_cas, old_cas, bound: float) -> float:
    """Lower is better: packed against the previous helix, antiparallel, no clashes.

    Terms are added cheapest first and the candidate is dropped as soon as it cannot beat
    ``bound`` (every term is non-negative).
    """
    prev_points, prev_dir = helices[-1]
    d_prev = _min_dist(axis, prev_points)
    score = (d_prev - PACKING_DISTANCE) ** 2 + 6.0 * (1.0 + g.dot(direction, prev_dir))
    if d_prev < CLASH_DISTANCE:
        score += 25.0 * (CLASH_DISTANCE - d_prev) ** 2
    if score >= bound:
        return score
    others = [_min_dist(axis, pts) for pts, _d in helices[:-1]]
    for d in others:
        if d < CLASH_DISTANCE:
            score += 25.0 * (CLASH_DISTANCE - d) ** 2
    if others:
        # A bundle, not a zig-zag sheet of helices: touch a second earlier helix too.
        score += 0.5 * (min(others) - PACKING_DISTANCE) ** 2
    if score >= bound:
        return score
    if g.min_dist2(loop_cas, old_cas) < 4.2**2:
        for ca in loop_cas:
            for old in old_cas:
                d = g.dist(ca, old)
                if d < 4.2:
                    score += 10.0 * (4.2 - d) ** 2
    return score


@functools.cache
def build_topology(segments: tuple[Segment, ...], seed: int = 0) -> Backbone:
    """Build the backbone of ``segments`` (cached: same input, same coordinates)."""
    rng = random.Random(seed)  # noqa: S311 - demo data, not secrets
    axis_dir_local, axis_foot_local = _helix_axis_local()
    torsions: list[tuple[float, float]] = []
    regions: list[str] = []
    ss: list[str] = []
    chain: list = []
    helices: list = []  # (axis points, direction) of each built helix

    def grow(new_torsions: list[tuple[float, float]]) -> None:
        for phi, psi in new_torsions:
            if not chain:
                chain.append(g.first_residue())
            else:
                g.extend(chain, torsions[-1][1], phi)
            torsions.append((phi, psi))

    i = 0
    while i < len(segments):
        seg = segments[i]
        if seg.kind == "C":
            grow([(-70.0 + rng.gauss(0, 8), 145.0 + rng.gauss(0, 8))] * seg.length)
            regions += ["ppii"] * seg.length
            ss += ["L"] * seg.length
        elif seg.kind == "H" and not helices:
            start = len(chain)
            grow([g.HELIX] * seg.length)
            helices.append(_helix_record(chain[start], seg.length))
            regions += ["helix"] * seg.length
            ss += ["H"] * seg.length
        elif seg.kind == "L":
            helix = segments[i + 1]
            loop = _best_loop(rng, chain, torsions, helices, seg.length, helix.length,
                              axis_dir_local, axis_foot_local)
            grow([(phi, psi) for _r, phi, psi in loop])
            regions += [r for r, _phi, _psi in loop]
            ss += ["L"] * seg.length
            start = len(chain)
            grow([g.HELIX] * helix.length)
            helices.append(_helix_record(chain[start], helix.length))
            regions += ["helix"] * helix.length
            ss += ["H"] * helix.length
            i += 1
        else:
            raise ValueError(f"segment {seg} cannot follow {segments[:i]}")
        i += 1
    residues = g.complete(chain, torsions)
    return Backbone(tuple(residues), "".join(ss), tuple(regions))


def _helix_record(first, length: int):
    """Return (axis points, direction) of a helix whose first residue is ``first``."""
    axis_dir_local, axis_foot_local = _helix_axis_local()
    frame = _frame(*first)
    direction = _to_global(frame, axis_dir_local)
    start = g.add(first[1], _to_global(frame, axis_foot_local))
    return _axis_points(start, direction, length), direction


def _best_loop(rng, chain, torsions, helices, loop_len, helix_len, dir_local, foot_local):
    """Sample loop torsions and keep the one that packs the next helix best."""
    old_cas = [r[1] for r in chain[:-3]]
    best, best_score = None, float("inf")
    for _ in range(CANDIDATES_PER_LOOP):
        loop = g.sample_loop(rng, loop_len)
        trial = chain[-1:]
        psi_prev = torsions[-1][1]
        for _r, phi, psi in loop:
            g.extend(trial, psi_prev, phi)
            psi_prev = psi
        g.extend(trial, psi_prev, g.HELIX[0])
        frame = _frame(*trial[-1])
        direction = _to_global(frame, dir_local)
        start = g.add(trial[-1][1], _to_global(frame, foot_local))
        axis = _axis_points(start, direction, helix_len)
        loop_cas = [r[1] for r in trial[1:]]
        score = _score(axis, direction, helices, loop_cas, old_cas, best_score)
        if score < best_score:
            best, best_score = loop, score
    return best
