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
the page it came from out of the request. The way back is the browser's own history: share
pages open the glossary in the same tab (embedded ones in a new tab, keeping the frame), and
the page's Back button (``static/js/glossary.js``) appears when the tab has a page to go back
to. The glossary never learns the share's address, so it cannot leak it.

Each entry names its sources: its definition's (``thresholds.SOURCES``, else its group's)
and its thresholds'. Per-family meanings (``domain.Metric.by_family``) say what one key
means for protein binders and for small molecules where the specification differs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app import domain
from app.domain.thresholds import SOURCES, THRESHOLDS, TOOLS, Threshold
from app.viewer.explore import fields
from app.viewer.proteins import liabilities, properties
from app.viewer.structure import contacts, model

# What a binding metric is for: the question it answers (one sentence each, after the
# specification's "primary metric for hit discovery" and "for lead optimisation ranking").
PURPOSE: dict[str, str] = {
    "binding_confidence": "Is it a binder? Use it for hit discovery: to pick binders "
                          "from non-binders in a screen.",
    "optimization_score": "How well does it bind compared with its analogues? Use it in "
                          "lead optimisation: to rank close variants of one series.",
}

# Where a group's definitions come from, for keys without their own (``SOURCES``).
_GROUP_SOURCES = {
    "metric": "The compute API's specification (section Metrics)",
    "sample": "The compute API's SDK field descriptions (boltz-api 0.50.0)",
    "adme": "The compute API's SDK field descriptions (boltz-api 0.50.0, ADME summary)",
    "chemistry": "RDKit documentation",
    "protein": "Biopython documentation (Bio.SeqUtils.ProtParam)",
    "liability": "This viewer's motif definitions (app/viewer/proteins/liabilities.py)",
    "chem_filter": "RDKit documentation",
    "structure": "This viewer's definition (app/viewer/structure/contacts.py)",
}
# A condition a field's value holds at, where it has one (a pH is a condition, not a unit).
_CONDITIONS = {"net_charge": f"pH {properties.NET_CHARGE_PH:g}",
               "lipophilicity": "pH 7.4 (logD 7.4)"}
# The classes of a class-valued field and what each says: (label (value), meaning).
_CLASSES = {"solubility": tuple((f"{label} ({value})", domain.SOLUBILITY_MEANINGS[value])
                                for value, (label, _tone) in domain.SOLUBILITY_CLASSES.items())}
# Units spelled out where a symbol alone would be cryptic.
_UNIT_WORDS = {"e": "e (elementary charges)"}

# Which tool computes a field of each group.
_TOOLS = {"metric": "Boltz (the compute API's structure model)",
          "sample": "Boltz (per sample of a structure-and-binding prediction)",
          "adme": "The compute API: an ADME prediction's model (its page names it), or a "
                  "run's ADME summary of each result (its record names no model); the two "
                  "are different predictions and can differ for one molecule",
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
             ("structure", "Structures: confidence, interface and epitope"))
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
    # Where the definition comes from (the thresholds cite their own).
    source: str = ""
    # (family, meaning) where the metric means something different per family.
    by_family: tuple[tuple[str, str], ...] = ()
    # The condition the value holds at (a pH), not part of its unit.
    condition: str = ""

    @property
    def sources(self) -> tuple[str, ...]:
        """Return every source the entry cites: its definition's, then its thresholds'."""
        found: list[str] = []
        for cited in (self.source, *(t.source for t in self.thresholds)):
            found += [part for part in cited.split("; ") if part and part not in found]
        return tuple(found)


def _direction(direction: str | None) -> str:
    return {"higher": "Higher is better", "lower": "Lower is better"}.get(
        direction or "", "Neither: it describes rather than grades")


def _metric_entry(metric: domain.Metric, group: str) -> Entry:
    tool = _TOOLS[group]
    if metric.key == "ipsae_min":
        tool = "The compute API, from the prediction's PAE matrix (ipSAE)"
    elif metric.key in domain.BINDING_METRICS:
        tool = "The compute API (the specification does not name the model)"
    scale = metric.scale
    if metric.key == "optimization_score":
        scale = "No unit, no fixed range (a relative ranking score)"
    return Entry(metric.key, metric.label, metric.description, scale,
                 _direction(metric.direction), THRESHOLDS.get(metric.key, ()), tool,
                 PURPOSE.get(metric.key, ""), _source(metric.key, group), metric.by_family)


def _source(key: str, group: str) -> str:
    return SOURCES.get(key) or _GROUP_SOURCES.get(group, "This viewer")


def _chem_filter_entries() -> list[Entry]:
    return [Entry(key, label, description, scale, direction, THRESHOLDS.get(key, ()),
                  TOOLS.get(key, _TOOLS["chemistry"]), source=_source(key, "chem_filter"))
            for key, label, description, scale, direction in _CHEM_FILTERS]


def _liability_entries() -> list[Entry]:
    """One entry per liability of ``proteins.liabilities`` (the filter liability=<key>)."""
    return [Entry(name, liabilities.LABELS[name],
                  f"{liabilities.MEANINGS[name]} Filter: liability={name}.",
                  "Sites per designed chain",
                  "Lower is better: no site is the goal", THRESHOLDS.get(name, ()),
                  _TOOLS["liability"], source=_source(name, "liability"))
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
                 "This viewer: gemmi reads the structure, numpy measures the distances",
                 source=_source("contact", "structure"))


def _plddt_entry() -> Entry:
    """Per-residue pLDDT, the 3D page's colouring: bands from ``structure.model``."""
    bands = "; ".join(label for _, label, _ in model.PLDDT_BANDS)
    return Entry(
        "plddt", "pLDDT (per residue)",
        "Predicted local distance difference test: the model's confidence, per residue, "
        "that the residue's local environment (distances to its neighbours within 15 \u00c5) is "
        "right. It says nothing about where one chain sits on another: read PAE or ipTM "
        "for that. The 3D page colours each residue by it, from the structure file (the "
        "B-factor column, or ModelCIF's local quality metric); a value on 0\u20131 is "
        "multiplied by 100.",
        "0\u2013100 per residue", "Higher is better",
        (Threshold(f"AlphaFold DB's bands: {bands}",
                   "AlphaFold DB documentation; Jumper et al., Nature 2021"),),
        "The structure model (Boltz), read from its structure file by this viewer",
        source=_source("plddt", "structure"))


def _pae_entry() -> Entry:
    """Predicted aligned error, the 3D page's map."""
    return Entry(
        "pae", "PAE (predicted aligned error)",
        "The expected error, in \u00c5ngstr\u00f6m, in the position of residue x when the "
        "predicted and true structures are aligned on residue y: one value per pair of "
        "residues (a ligand adds one row and column per atom in Boltz's output). The 3D "
        "page draws it as a map, x across and y down; lines mark where chains start. It is "
        "not symmetric. Min. interaction PAE and ipSAE are read from the blocks between "
        "chains.",
        "\u00c5, from 0 (AlphaFold DB's files stop at 31.75)", "Lower is better",
        THRESHOLDS.get("pae", ()),
        "The structure model (Boltz), from the prediction's archive; AlphaFold DB's JSON",
        source=_source("pae", "structure"))

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
            field.key, field.label, field.description,
            _UNIT_WORDS.get(field.unit, field.unit),
            _direction(_field_direction(field)), THRESHOLDS.get(field.key, ()),
            TOOLS.get(field.key) or _TOOLS.get(field.group, "Computed by this viewer"),
            source=_source(field.key, field.group),
            by_family=_CLASSES.get(field.key, ()),
            condition=_CONDITIONS.get(field.key, "")))
    found["chem_filter"] = _chem_filter_entries()
    found["liability"] = _liability_entries()
    found["structure"] = [_plddt_entry(), _pae_entry(), _contact_entry()]
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
