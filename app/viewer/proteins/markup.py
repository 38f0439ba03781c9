"""The result page's designed-chain report: properties, liability counts, marked sequence.

``report(record)`` gives the template what it shows for a protein result: the ProtParam
values and liability counts (``proteins.columns``, cached per sequence) and the sequence
as markup, in groups of ten residues, each liability motif wrapped in ``<mark>`` whose
title names the liabilities. Every residue letter is escaped: a record's sequence is text
from the API, not trusted markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from app.viewer.proteins import columns, liabilities

if TYPE_CHECKING:
    from flask import Flask

GROUP = 10  # residues per group, as the entity blocks print sequences


@dataclass(frozen=True)
class Report:
    """What the result page shows of the designed chain."""

    chain: str
    values: dict
    counts: dict[str, int]
    sequence: Markup


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
            title = escape("; ".join(liabilities.LABELS[n] for n in names))
            classes = " ".join(f"liab-{n}" for n in names)
            out.append(f'<mark class="liab {classes}" title="{title}">{text}</mark>')
        else:
            out.append(str(text))
        start = end
    return "".join(out)


def marked_sequence(sequence: str) -> Markup:
    """Return ``sequence`` as escaped markup, groups of ten, liability motifs in <mark>."""
    residues = [(letter, tuple(names)) for run, names in liabilities.marked(sequence)
                for letter in run][:liabilities.MAX_RESIDUES]
    groups = [f"<span>{_chunk_html(residues[i:i + GROUP])}</span>"
              for i in range(0, len(residues), GROUP)]
    if len(sequence) > liabilities.MAX_RESIDUES:  # not analysed: shown plain
        groups.append(f"<span>{escape(sequence[liabilities.MAX_RESIDUES:])}</span>")
    return Markup("".join(groups))  # noqa: S704 - every letter escaped above


def report(record: dict) -> Report | None:
    """Return the designed chain's report of a result record, or None without a protein."""
    entity = next((e for e in record.get("entities") or []
                   if isinstance(e, dict) and e.get("type") == "protein"), None)
    sequence = columns.designed_sequence(record)
    if entity is None or not sequence:
        return None
    chain = ", ".join(str(c) for c in entity.get("chain_ids") or []) or "\u2013"
    return Report(chain, columns.values(sequence), liabilities.counts(sequence),
                  marked_sequence(sequence))


def init_app(app: Flask) -> None:
    """Offer ``protein_report`` and the liabilities' labels to the templates."""
    descriptions = {key: description for key, _, _, description, _ in columns.FIELD_SPECS}
    app.jinja_env.globals.update(protein_report=report, liability_labels=liabilities.LABELS,
                                 protein_descriptions=descriptions)
