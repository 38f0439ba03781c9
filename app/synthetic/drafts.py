"""What a pipeline builder hands to the seeder: result records plus their files.

Builders produce ``ResultDraft`` objects (the row and the structure text); the seeder
stores the files, builds the archives and inserts everything in bulk. Timestamps are
spread over the run of each pipeline, and ids are made from them, so that id order is
creation order as everywhere else in the service.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.platform.ids import new_id
from app.store.catalog import NewResult


@dataclass(frozen=True)
class ResultDraft:
    """One result row with its mmCIF text and, for some small molecules, an SDF."""

    result: NewResult
    structure_cif: str
    ligand_sdf: str | None = None
    # What metrics.json in the archive describes besides metrics (entities or SMILES).
    label: str = ""


@dataclass(frozen=True)
class PipelineDraft:
    """A pipeline's row fields (without ids) and its results.

    ``input`` is the SDK's input model of the kind (``app.synthetic.inputs``);
    ``progress`` the stored part of the SDK's progress (requested totals, failed counts,
    ``phase``, ``rejection_summary``; the service adds the generated / screened / scored
    count and ``latest_result_id``). A ``stopped`` run ended at ``completed_at`` by a
    user's stop: its row gets ``stopped_at`` instead of ``completed_at``.
    """

    kind: str
    name: str
    input: dict
    created_at: datetime
    completed_at: datetime
    results: list[ResultDraft]
    progress: dict | None = None
    status: str = "succeeded"


def timeline(start: datetime, end: datetime, count: int, prefix: str = "res"):
    """Yield ``count`` (id, created_at) pairs, strictly increasing, between start and end.

    Each step is at least one millisecond, so ids made from the times sort in creation
    order even though their random tails are independent.
    """
    for at_ms, created in times(start, end, count):
        yield new_id(prefix, at_ms=at_ms), created


def times(start: datetime, end: datetime, count: int):
    """Yield the (epoch milliseconds, created_at) of ``timeline``, without making ids."""
    step_ms = max(1, int((end - start).total_seconds() * 1000) // (count + 1))
    base_ms = int(start.replace(tzinfo=UTC).timestamp() * 1000)  # naive UTC
    for i in range(1, count + 1):
        yield base_ms + i * step_ms, start + timedelta(milliseconds=i * step_ms)


def protein_entity(chain_id: str, sequence: str, *, cyclic: bool = False,
                   modifications: list[dict] | None = None) -> dict:
    """Return a protein Entity as the spec shapes it."""
    return {
        "type": "protein",
        "chain_ids": [chain_id],
        "value": sequence,
        "cyclic": cyclic,
        "modifications": list(modifications or []),
    }


def ccd_modification(index: int, code: str) -> dict:
    """Return a CCD Modification at 0-based residue ``index``."""
    return {"residue_index": index, "type": "ccd", "value": code}
