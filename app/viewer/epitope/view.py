"""What the results page shows of a protein run's epitope: scan progress and the strip.

``of(link_id, pipeline, kind, state, query)`` starts (or resumes) the scan of a ready
index (``scan.ensure``) and returns an ``EpitopeView``: how many designs were read, the
per-residue contact frequency over each target chain's sequence (of the whole run: the
strip says which epitope the campaign hits, whatever the table's filters), the most
contacted residues (the strip's text alternative) and the residues the view filters by.
The targets' chains and sequences come from the first indexed record and the run's input
(``structure.roles``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app import domain
from app.platform.timeutil import utcnow
from app.viewer.epitope import answers, query_keys, scan
from app.viewer.provenance.roles import Role, result_roles
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

TOP = 10  # residues listed in words


@dataclass(frozen=True)
class EpitopeView:
    """The results page's epitope section."""

    done: int  # designs read so far
    total: int  # designs in the index
    running: bool
    read: int  # designs whose structure gave contacts (the frequencies' denominator)
    chains: list[list[answers.StripResidue]]
    top: list[answers.StripResidue]
    chosen: frozenset[str]  # residues of contacts= / contacts_any= ("B:12")

    @property
    def complete(self) -> bool:
        """Whether every design of the index was read."""
        return self.done >= self.total


def _targets(state: IndexState, pipeline: dict) -> list[tuple[str, str]]:
    """Return (chain, sequence) of the target chains, from the first indexed record."""
    with get_engine().connect() as conn:
        first = queries.first_records(conn, state.pipeline_id, 1)
    if not first:
        return []
    record = first[0]
    roles = result_roles(record, pipeline)
    out = []
    for entity in record.get("entities") or []:
        if not isinstance(entity, dict) or entity.get("type") != "protein":
            continue
        for chain in entity.get("chain_ids") or []:
            if roles.get(chain) == Role.TARGET and isinstance(entity.get("value"), str):
                out.append((chain, entity["value"]))
    return out


def progress_key(link_id: str, pipeline: dict, kind: domain.Kind, state: IndexState
                 ) -> tuple:
    """Return what the section shows beyond the index version and the query: the scan's
    progress (designs read, running). Starts or resumes the scan, as ``of`` does."""
    if kind.family != "protein" or not state.ready:
        return ()
    progress = scan.ensure(link_id, pipeline, state)
    return () if progress is None else (progress.done, progress.running(utcnow()))


def of(link_id: str, pipeline: dict, kind: domain.Kind, state: IndexState,
       query) -> EpitopeView | None:
    """Return the epitope section of a ready protein index (None otherwise)."""
    if kind.family != "protein" or not state.ready:
        return None
    progress = scan.ensure(link_id, pipeline, state)
    if progress is None:
        return None  # too many results to scan, or scans are off
    targets = _targets(state, pipeline)
    if not targets:
        return None
    chains, read = answers.strip(state.pipeline_id, targets)
    ranked = sorted((r for chain in chains for r in chain if r.designs),
                    key=lambda r: (-r.designs, r.chain, r.number))
    chosen = {f"{c}:{n}" for name in query_keys.NAMES
              for c, n in query_keys.residues(getattr(query, name))}
    return EpitopeView(min(progress.done, state.indexed), state.indexed,
                       progress.running(utcnow()), read, chains, ranked[:TOP],
                       frozenset(chosen))
