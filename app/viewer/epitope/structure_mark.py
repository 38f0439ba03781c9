"""The design's epitope on its 3D page: the target residues it contacts, from the scan.

``mark(pipeline_id, result_id, kind)`` returns a ``Mark`` for a protein result: its
contacted residues (drawn as spheres by ``structure.scene``) and the legend's words;
None for other kinds. Before the scan has read the design the mark says so and draws
nothing (the 3D page never waits for a scan).
"""

from __future__ import annotations

from dataclasses import dataclass

from app import domain
from app.viewer.store import epitopes as store
from app.viewer.store import get_engine
from app.viewer.structure.model import ranges


@dataclass(frozen=True)
class Mark:
    """A design's epitope as the 3D page shows it."""

    state: str  # "ok", "pending" (not read yet), "no_structure", "unreadable"
    residues: tuple[tuple[str, int], ...] = ()  # (auth chain, residue number)

    @property
    def text(self) -> list[str]:
        """Return the residues as short ranges per chain ("Chain B: 12-15, 40")."""
        by_chain: dict[str, list[str]] = {}
        for chain, first, last in ranges(sorted(self.residues)):
            by_chain.setdefault(chain, []).append(
                str(first) if first == last else f"{first}-{last}")
        return [f"Chain {chain}: {', '.join(spans)}" for chain, spans in by_chain.items()]


def mark(pipeline_id: str, result_id: str, kind: domain.Kind) -> Mark | None:
    """Return the epitope mark of a protein result (None for small molecules)."""
    if kind.family != "protein":
        return None
    with get_engine().connect() as conn:
        found = store.design(conn, pipeline_id, result_id)
    if found is None:
        return Mark("pending")
    residues = tuple((c, int(n)) for c, _, n in (r.partition(":") for r in found.contacts))
    return Mark(found.state, residues)
