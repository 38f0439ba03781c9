"""The metric glossary: what each number in the viewer's tables means, and how to read it.

One entry per metric of ``app.domain`` (the results' and the prediction samples'), per ADME
field and per computed field of ``results.fields`` (RDKit chemistry, and any other group a
later field adds): meaning, unit or range, which direction is better, the thresholds
people commonly use (each with its source: data in ``app.metric_thresholds``) and
the tool that computes it. Column headers link to ``/glossary#<key>`` (``anchor``).

The glossary is the same for every link, so it lives at ``/glossary``, outside any share:
a header link carries no share id, and the viewer's ``Referrer-Policy: no-referrer`` keeps
the page it came from out of the request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app import domain
from app.metric_thresholds import THRESHOLDS, Threshold
from app.viewer.results import fields

# What a binding metric is for: the question it answers (one sentence each).
PURPOSE: dict[str, str] = {
    "binding_confidence": "Is it a binder? Use it for hit discovery: to pick binders "
                          "from decoys in a screen.",
    "optimization_score": "How well does it bind compared with its analogues? Use it in "
                          "lead optimisation: to rank close variants of one series.",
}

# Which tool computes a field of each group.
_TOOLS = {"metric": "Boltz (the compute API's structure model)",
          "sample": "Boltz (per sample of a structure-and-binding prediction)",
          "adme": "The compute API's ADME model",
          "chemistry": "RDKit, from the SMILES (computed by this viewer)",
          "protein": "Biopython ProtParam and sequence motifs, from the designed chain "
                     "(computed by this viewer)"}
_SECTIONS = (("metric", "Structure and binding metrics"),
             ("sample", "Per-sample prediction metrics"),
             ("adme", "ADME predictions"),
             ("chemistry", "Computed chemistry"),
             ("protein", "Computed protein properties"))
# Fields of results.fields shown as table columns but not numbers to read a threshold by.
_RECORD_GROUPS = ("record",)


@dataclass(frozen=True)
class Entry:
    """One glossary entry: the key (its anchor), label, meaning, scale and how to read it."""

    key: str
    label: str
    description: str
    scale: str
    direction: str  # "Higher is better", "Lower is better" or "Neither: descriptive"
    thresholds: tuple[Threshold, ...]
    tool: str
    purpose: str = ""


def _direction(direction: str | None) -> str:
    return {"higher": "Higher is better", "lower": "Lower is better"}.get(
        direction or "", "Neither: it describes rather than grades")


def _metric_entry(metric: domain.Metric, group: str) -> Entry:
    tool = _TOOLS[group]
    if metric.key == "ipsae_min":
        tool = "Computed from Boltz's PAE matrix (ipSAE)"
    return Entry(metric.key, metric.label, metric.description, metric.scale,
                 _direction(metric.direction), THRESHOLDS.get(metric.key, ()), tool,
                 PURPOSE.get(metric.key, ""))


def _field_direction(field: fields.Field) -> str | None:
    """Return the better direction of a non-metric field: only graded ones have one."""
    if field.key in ("permeability", "qed"):
        return "higher"
    if field.key in ("lipinski_violations", "instability_index", "liability_count"):
        return "lower"
    return None


def sections() -> list[tuple[str, str, list[Entry]]]:
    """Return the glossary: (group, heading, entries) in reading order.

    Metrics come from ``app.domain``; ADME and computed fields from ``results.fields``, so
    a field added there appears here too (under its group, or "Other fields").
    """
    found: dict[str, list[Entry]] = {group: [] for group, _ in _SECTIONS}
    found["other"] = []
    found["metric"] = [_metric_entry(m, "metric") for m in domain.METRICS.values()]
    found["sample"] = [_metric_entry(m, "sample") for m in domain.SAMPLE_ONLY_METRICS.values()]
    for field in fields.FIELDS.values():
        if field.group in ("metric", *_RECORD_GROUPS):
            continue
        found[field.group if field.group in found else "other"].append(Entry(
            field.key, field.label, field.description, field.unit,
            _direction(_field_direction(field)), THRESHOLDS.get(field.key, ()),
            _TOOLS.get(field.group, "Computed by this viewer")))
    headings = (*_SECTIONS, ("other", "Other fields"))
    return [(group, heading, found[group]) for group, heading in headings if found[group]]


@functools.cache
def keys() -> frozenset[str]:
    """Return every key the glossary has an entry for."""
    return frozenset(entry.key for _, _, entries in sections() for entry in entries)


def anchor(column_key: str) -> str | None:
    """Return the glossary anchor of a table column's key, or None if it has no entry.

    Results tables name ADME columns ``adme.<key>``; prediction tables use the bare key.
    """
    key = column_key.removeprefix("adme.")
    return key if key in keys() else None
