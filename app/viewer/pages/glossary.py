"""The metric glossary: what each number in the viewer's tables means, and how to read it.

One entry per metric of ``app.domain`` (the results' and the prediction samples'), per ADME
field and per computed field of ``results.fields`` (RDKit chemistry, and any other group a
later field adds): meaning, unit or range, which direction is better, the thresholds
people commonly use (each with its source, data here rather than prose in a template) and
the tool that computes it. Column headers link to ``/glossary#<key>`` (``anchor``).

The glossary is the same for every link, so it lives at ``/glossary``, outside any share:
a header link carries no share id, and the viewer's ``Referrer-Policy: no-referrer`` keeps
the page it came from out of the request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app import domain
from app.viewer.results import fields

_AF3 = "Abramson et al., Nature 2024 (AlphaFold 3); AlphaFold Server guidance"
_AFDB = "Jumper et al., Nature 2021; AlphaFold DB documentation"
_LIPINSKI = "Lipinski et al., Adv. Drug Deliv. Rev. 1997 (rule of five)"
_VEBER = "Veber et al., J. Med. Chem. 2002"


@dataclass(frozen=True)
class Threshold:
    """A cut-off people commonly read a metric by, and where it comes from."""

    text: str
    source: str


# key -> thresholds. Confidences of Boltz are on 0-1 (AlphaFold prints pLDDT on 0-100).
THRESHOLDS: dict[str, tuple[Threshold, ...]] = {
    "iptm": (Threshold("> 0.8 confident interface; 0.6\u20130.8 grey zone; < 0.6 likely wrong",
                       _AF3),),
    "ligand_iptm": (Threshold("Read as ipTM: > 0.8 confident, < 0.6 likely wrong", _AF3),),
    "protein_iptm": (Threshold("Read as ipTM: > 0.8 confident, < 0.6 likely wrong", _AF3),),
    "ptm": (Threshold("> 0.5: the overall fold is likely similar to the true one", _AF3),),
    "complex_plddt": (Threshold(
        "> 0.9 very high; 0.7\u20130.9 confident; 0.5\u20130.7 low; < 0.5 very low (pLDDT 90/70/50 "
        "on AlphaFold's 0\u2013100 scale)", _AFDB),),
    "complex_iplddt": (Threshold("Read as pLDDT, at the interface: > 0.7 confident", _AFDB),),
    "structure_confidence": (Threshold(
        "Boltz's ranking score, 0.8 \u00d7 complex pLDDT + 0.2 \u00d7 ipTM (pTM for one chain); "
        "> 0.8 strong in this viewer's shading", "Boltz documentation (confidence_score)"),),
    "min_interaction_pae": (Threshold(
        "< 5 Å confident relative placement; > 15 Å placement unknown", _AFDB),),
    "complex_pde": (Threshold("No common cut-off: compare samples of one prediction",
                              "Boltz documentation"),),
    "complex_ipde": (Threshold("No common cut-off: compare samples of one prediction",
                               "Boltz documentation"),),
    "binding_confidence": (Threshold(
        "A probability: > 0.5 predicted binder; ≥ 0.8 strong in this viewer's shading",
        "Passaro et al., 2025 (Boltz-2, affinity probability)"),),
    "optimization_score": (Threshold(
        "No absolute cut-off: rank analogues of one series by it",
        "Passaro et al., 2025 (Boltz-2, affinity value)"),),
    "ipsae_min": (Threshold("> 0.6 often taken as a likely interaction; compare designs",
                            "Dunbrack, bioRxiv 2025 (ipSAE)"),),
    "lipophilicity": (Threshold("logD 7.4 of 1\u20133 is the usual sweet spot for oral drugs",
                                "Waring, Expert Opin. Drug Discov. 2010"),),
    "permeability": (Threshold("< 1 low; 1\u201310 moderate; > 10 high (\u00d7 10⁻⁶ cm/s)",
                               "Yee, Pharm. Res. 1997 (Caco-2)"),),
    "mol_weight": (Threshold("≤ 500 g/mol", _LIPINSKI),),
    "clogp": (Threshold("≤ 5", _LIPINSKI),),
    "hbd": (Threshold("≤ 5", _LIPINSKI),),
    "hba": (Threshold("≤ 10", _LIPINSKI),),
    "tpsa": (Threshold("≤ 140 Å² for oral absorption", _VEBER),
             Threshold("< 90 Å² to cross the blood-brain barrier",
                       "Hitchcock & Pennington, J. Med. Chem. 2006")),
    "rotatable_bonds": (Threshold("≤ 10 for oral bioavailability", _VEBER),),
    "lipinski_violations": (Threshold("≤ 1: more than one makes poor absorption likely",
                                      _LIPINSKI),),
    "instability_index": (Threshold("> 40 predicts an unstable protein",
                                    "Guruprasad et al., Protein Eng. 1990"),),
    "gravy": (Threshold("> 0 hydrophobic; most soluble proteins are below 0",
                        "Kyte & Doolittle, J. Mol. Biol. 1982"),),
    "liability_count": (Threshold("0 is the goal; each site is a manufacturability risk",
                                  "Lu et al., mAbs 2019 (sequence liabilities)"),),
    "qed": (Threshold("0\u20131; approved oral drugs average about 0.5\u20130.7",
                      "Bickerton et al., Nature Chem. 2012"),),
}

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
