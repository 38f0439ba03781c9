"""The result page's designed-chain report: properties, liability counts, marked sequence.

``report(record, pipeline_id)`` gives the template what it shows for a protein result:
the ProtParam values (``proteins.columns``, cached per sequence) and the liabilities by
their one definition (``liabilities.assess``) with the design's exposed M/W as the
epitope scan stored them (``store.epitopes``): the header's total, the per-liability
list, the marks and the footnote's state all come from that one assessment, the same the
index (so the table and the exports) holds. ``state`` says whether oxidation is counted:
``read`` (the structure's exposure is known), ``pending`` (not read yet: the total is
provisional) or ``unread`` (the design has no readable structure: oxidation stays
uncounted). The sequence is markup in groups of ten residues, each counted site wrapped in
``<mark>`` whose title names the liabilities, an M/W awaiting the structure marked
``pending`` (not counted). Every residue letter is escaped: a record's sequence is text
from the API, not trusted markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from app.platform.timeutil import utcnow
from app.viewer.proteins import columns, liabilities
from app.viewer.store import epitopes as epitope_store
from app.viewer.store import get_engine

if TYPE_CHECKING:
    from flask import Flask

GROUP = 10  # residues per group, as the entity blocks print sequences
PENDING_LABEL = "Oxidation: an M or W whose exposure awaits the structure (not counted)"
LABELS = {**liabilities.LABELS, "pending": PENDING_LABEL}


@dataclass(frozen=True)
class Report:
    """What the result page shows of the designed chain."""

    chain: str
    values: dict
    assessment: liabilities.Assessment
    sequence: Markup
    state: str = "pending"  # "read", "pending" or "unread" (module docstring)

    @property
    def counts(self) -> dict[str, int | None]:
        """The count per liability (oxidation None while it is not read)."""
        return self.assessment.counts

    @property
    def total(self) -> int:
        """The header's count: the sum of ``counts``."""
        return self.assessment.total


def _chunk_html(residues: list[tuple[str, tuple[str, ...]]]) -> str:
    """Return one group's markup: runs of residues with the same liabilities."""
    out, start = [], 0
    while start < len(residues):
        names = residues[start][1]
        end = start
        while end < len(residues) and residues[end][1] == names:
            end += 1
        text = escape("".join(letter for letter, _ in residues[start:end]))
        if names:
            title = escape("; ".join(LABELS[n] for n in names))
            classes = " ".join(f"liab-{n}" for n in names)
            out.append(f'<mark class="liab {classes}" title="{title}">{text}</mark>')
        else:
            out.append(str(text))
        start = end
    return "".join(out)


def marked_sequence(sequence: str, assessment: liabilities.Assessment | None = None
                    ) -> Markup:
    """Return ``sequence`` as escaped markup, groups of ten, the sites of ``assessment``
    (``liabilities.assess(sequence)`` when not given) in <mark>."""
    runs = liabilities.marked(sequence, assessment)
    residues = [(letter, tuple(names)) for run, names in runs
                for letter in run][:liabilities.MAX_RESIDUES]
    groups = [f"<span>{_chunk_html(residues[i:i + GROUP])}</span>"
              for i in range(0, len(residues), GROUP)]
    if len(sequence) > liabilities.MAX_RESIDUES:  # not analysed: shown plain
        groups.append(f"<span>{escape(sequence[liabilities.MAX_RESIDUES:])}</span>")
    return Markup("".join(groups))  # noqa: S704 - every letter escaped above


def exposure(pipeline_id: str | None, result_id: object) -> tuple[str, tuple | None]:
    """Return the design's oxidation state and exposed M/W as the epitope scan stored
    them: ("read", positions), ("unread", None) or ("pending", None).

    "pending" while a scan of the pipeline runs: the table, its filters and the exports
    read the index, whose counts change when the scan finishes (``epitope_store.finish``
    bumps its version), so the result page shows the same count as they do until then.
    """
    if not pipeline_id or not result_id:
        return "pending", None
    with get_engine().connect() as conn:
        scan = epitope_store.get(conn, pipeline_id)
        if scan is None or scan.finished_count is None or scan.running(utcnow()):
            return "pending", None
        found = epitope_store.design(conn, pipeline_id, str(result_id))
    if found is None:
        return "pending", None
    return ("unread", None) if found.exposed is None else ("read", found.exposed)


def report(record: dict, pipeline_id: str | None = None) -> Report | None:
    """Return the designed chain's report of a result record, or None without a protein;
    with ``pipeline_id``, oxidation as the epitope scan read the design's structure."""
    entity = next((e for e in record.get("entities") or []
                   if isinstance(e, dict) and e.get("type") == "protein"), None)
    sequence = columns.designed_sequence(record)
    if entity is None or not sequence:
        return None
    chain = ", ".join(str(c) for c in entity.get("chain_ids") or []) or "\u2013"
    state, exposed = exposure(pipeline_id, record.get("id"))
    assessment = liabilities.assess(sequence, exposed)
    return Report(chain, columns.values(sequence), assessment,
                  marked_sequence(sequence, assessment), state)


def init_app(app: Flask) -> None:
    """Offer ``protein_report`` and the liabilities' labels to the templates."""
    descriptions = {key: description for key, _, _, description, _ in columns.FIELD_SPECS}
    app.jinja_env.globals.update(protein_report=report, liability_labels=liabilities.LABELS,
                                 liability_provisional=liabilities.PROVISIONAL,
                                 exposed_rsa=liabilities.EXPOSED_RSA,
                                 protein_descriptions=descriptions)
