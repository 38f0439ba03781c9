"""The metric glossary: what each number in the viewer's tables means, and how to read it.

One entry per metric of ``app.domain`` (the results' and the prediction samples'), per ADME
field and per computed field of ``explore.fields`` (RDKit chemistry, Biopython protein
properties, and any other group a later field adds), per sequence liability
(``proteins.liabilities``), per chemistry filter (structure, alerts, scaffold,
similarity) and the contact definition (``structure.contacts``): meaning, unit or
range, which direction is better, the thresholds people commonly use (each with its
source) and the tool that computes it (both data in ``app.domain.thresholds``). Column
headers link to ``/glossary#<key>`` (``anchor``).

The glossary is the same for every link, so it lives at ``/glossary``, outside any share:
a header link carries no share id, and the viewer's ``Referrer-Policy: no-referrer`` keeps
the page it came from out of the request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app import domain
from app.domain.thresholds import THRESHOLDS, TOOLS, Threshold
from app.viewer.explore import fields
from app.viewer.proteins import liabilities
from app.viewer.structure import contacts

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
                     "(computed by this viewer)",
          "liability": "This viewer: a motif search over the designed chain's sequence "
                       "(regular expressions; cysteines counted)"}
_SECTIONS = (("metric", "Structure and binding metrics"),
             ("sample", "Per-sample prediction metrics"),
             ("adme", "ADME predictions"),
             ("chemistry", "Computed chemistry"),
             ("chem_filter", "Structures, alerts, scaffolds and similarity"),
             ("protein", "Computed protein properties"),
             ("liability", "Sequence liabilities"),
             ("structure", "Structures: interface and epitope"))
# Entries of the chemistry filters and the Structure column (no number of explore.fields):
# (key, label, description, unit or range, direction).
_CHEM_FILTERS = (
    ("smiles", "Structure", "The molecule drawn from its SMILES (2D, RDKit), the SMILES "
     "under it, and a PAINS or Brenk badge when it has a structural alert (hover the badge "
     "for the alerts' names; the result page shades each alert's atoms).",
     "A drawing and its SMILES", "Neither: it describes rather than grades"),
    ("alerts", "Structural alerts (PAINS, Brenk)", "Substructures that flag a molecule: PAINS "
     "(A, B, C) often give false hits in assays (redox cycling, metal chelation, "
     "aggregation, reactive groups); Brenk's list holds groups avoided for toxicity, "
     "reactivity or poor pharmacokinetics. Filter with alerts=none|any, alert_family=pains|"
     "brenk or alert=<name> (RDKit's name of the alert). A molecule has an alert when RDKit's "
     "catalog finds one or the compute API's own check flags it (its warning "
     "pains_substructure); the badge names the source.",
     "Per molecule: the alerts it matches, none, or unknown (unreadable SMILES)",
     "Fewer is better: none is the goal for a screening hit"),
    ("scaffold", "Scaffold (Bemis-Murcko)", "The ring systems and the linkers between them, "
     "side chains removed: the series a molecule belongs to. Filter with scaffold=<SMILES> "
     "(acyclic for a molecule without rings); group=scaffold shows one row per scaffold.",
     "A canonical SMILES, or acyclic", "Neither: it describes rather than grades"),
    ("similarity", "Similarity (Tanimoto)", "How much of the fingerprint a molecule shares "
     "with the query molecule of similar_to (a pasted SMILES or a result): bits in both "
     "divided by bits in either, on Morgan fingerprints of radius 2 (ECFP4-like), 2048 bits.",
     "0\u20131 (1: the same fingerprint)", "Higher is more similar to the query"),
)
# Fields of explore.fields shown as table columns but not numbers to read a threshold by.
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


def _chem_filter_entries() -> list[Entry]:
    return [Entry(key, label, description, scale, direction, THRESHOLDS.get(key, ()),
                  TOOLS.get(key, _TOOLS["chemistry"]))
            for key, label, description, scale, direction in _CHEM_FILTERS]


def _liability_entries() -> list[Entry]:
    """One entry per liability of ``proteins.liabilities`` (the filter liability=<key>)."""
    return [Entry(name, liabilities.LABELS[name],
                  f"{liabilities.MEANINGS[name]} Filter: liability={name}.",
                  "Sites per designed chain",
                  "Lower is better: no site is the goal", THRESHOLDS.get(name, ()),
                  _TOOLS["liability"])
            for name in liabilities.LIABILITIES]


def _contact_entry() -> Entry:
    """The contact definition (``structure.contacts``): its text written from the constants."""
    return Entry("contact", "Contact (interface, epitope)",
                 f"Two residues of different chains are in contact with {contacts.RULE}. "
                 "The 3D page's interface, a design's epitope, the contacts= filters and "
                 "the compare page all use this one definition.",
                 f"{contacts.CONTACT_CUTOFF:g} \u00c5 heavy atom to heavy atom; "
                 f"{contacts.CB_CONTACT:g} \u00c5 C\u03b2 to C\u03b2 (models without side "
                 "chains)", "Neither: it describes rather than grades", (),
                 "This viewer: gemmi reads the structure, numpy measures the distances")


def _field_direction(field: fields.Field) -> str | None:
    """Return the better direction of a non-metric field: only graded ones have one."""
    if field.key in ("permeability", "qed"):
        return "higher"
    if field.key in ("lipinski_violations", "instability_index", "liability_count"):
        return "lower"
    return None


def sections() -> list[tuple[str, str, list[Entry]]]:
    """Return the glossary: (group, heading, entries) in reading order.

    Metrics come from ``app.domain``; ADME and computed fields from ``explore.fields``, so
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
            TOOLS.get(field.key) or _TOOLS.get(field.group, "Computed by this viewer")))
    found["chem_filter"] = _chem_filter_entries()
    found["liability"] = _liability_entries()
    found["structure"] = [_contact_entry()]
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
