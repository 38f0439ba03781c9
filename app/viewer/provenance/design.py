"""The settings a pipeline run was asked for: binder modality, length, filters, budget.

``design_facts(input, progress)`` reads a pipeline run's SDK ``input`` (binder
specification, sequence rules, chemical space, pocket, molecule filters, the number
requested) into ``Fact`` lines.
"""

from __future__ import annotations

from app.viewer.core.formatting import format_number
from app.viewer.provenance.entities import binder_specification_entities
from app.viewer.provenance.facts import Fact, count_phrase
from app.viewer.provenance.progress import COUNTERS, REQUESTED
from app.viewer.provenance.values import (
    as_dict,
    as_list,
    count,
    file_name,
    length_phrase,
    spec_length,
    text,
)

MODALITIES = {
    "peptide": "Peptide",
    "antibody": "Antibody",
    "nanobody": "Nanobody",
    "custom_protein": "Custom protein",
}
CURATED = {"boltz_nanobody": "Boltz curated nanobody", "boltz_antibody": "Boltz curated antibody"}
CHEMICAL_SPACES = {"enamine_real": "Enamine REAL", "none": "Unconstrained"}


def _binder_design(spec: dict, facts: list[Fact]) -> None:
    """Add the binder modality and length range of a binder specification to ``facts``."""
    modalities, curated, ranges = [], [], []

    def visit(node) -> None:
        node = as_dict(node)
        modality = text(node.get("modality"))
        if modality:
            modalities.append(MODALITIES.get(modality, modality.replace("_", " ")))
        binder = text(node.get("binder"))
        if binder in CURATED:
            curated.append(CURATED[binder])
        for sub in as_list(node.get("binder_specifications")) + as_list(node.get("specifications")):
            visit(sub)

    visit(spec)
    for view in binder_specification_entities(spec):
        if view.type == "designed_protein":
            span = spec_length(view.value)
            if span:
                ranges.append(span)
    names = list(dict.fromkeys(modalities + curated))
    if names:
        facts.append(Fact("Binder modality", ", ".join(names)))
    if ranges:
        low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
        facts.append(Fact("Binder length", length_phrase(low, high)))
    kind = text(spec.get("type"))
    if kind in ("uniformly_sampled_specifications", "uniformly_sampled"):
        subs = as_list(spec.get("binder_specifications")) + as_list(spec.get("specifications"))
        facts.append(Fact("Binder specifications", f"{len(subs)}, sampled uniformly"))
    elif kind == "structure_template":
        name = file_name(as_dict(spec.get("structure")).get("url"))
        facts.append(Fact("Binder source", f"Template structure ({name})" if name
                          else "Template structure"))


def _strings(value) -> list[str]:
    return [v for v in as_list(value) if isinstance(v, str) and v]


def _filters(data: dict) -> list[Fact]:
    """Return the sequence rules a protein design kept to (global filters and ``rules``)."""
    excluded, motifs, fractions = [], [], []
    for item in as_list(data.get("global_design_filters")):
        item = as_dict(item)
        kind = item.get("type")
        if kind == "excluded_amino_acids":
            excluded += _strings(item.get("amino_acids"))
        elif kind == "excluded_sequence_motifs":
            motifs += _strings(item.get("motifs"))
        elif kind == "max_hydrophobic_fraction":
            fractions.append(item.get("max_fraction"))
    for holder in (data, as_dict(data.get("binder_specification"))):
        rules = as_dict(holder.get("rules"))
        excluded += _strings(rules.get("excluded_amino_acids"))
        motifs += _strings(rules.get("excluded_sequence_motifs"))
        fractions.append(rules.get("max_hydrophobic_fraction"))
    facts = []
    if excluded:
        facts.append(Fact("Excluded amino acids", ", ".join(dict.fromkeys(excluded))))
    if motifs:
        facts.append(Fact("Excluded motifs", ", ".join(dict.fromkeys(motifs))))
    numbers = [f for f in fractions if isinstance(f, int | float) and not isinstance(f, bool)]
    if numbers:
        facts.append(Fact("Max hydrophobic fraction", format_number(min(numbers), 2)))
    return facts


def design_facts(data: dict, progress: dict) -> list[Fact]:
    """Return what the input asked to design: modality, length, number, chemical space.

    The number requested is left to the progress line when that says it ("of 300").
    """
    facts: list[Fact] = []
    if "binder_specification" in data:
        _binder_design(as_dict(data.get("binder_specification")), facts)
    elif data.get("type") == "binder" and "binder" in data:
        _binder_design(as_dict(data.get("binder")), facts)
    elif data.get("type") == "generic" and "structure" not in data:
        facts.append(Fact("Design", "Generic protein design"))
    if "chains_config" in data or ("structure" in data and "entities" in data):
        name = file_name(as_dict(data.get("structure")).get("url"))
        facts.append(Fact("Starting structure", name or "Uploaded structure"))
        if data.get("type") in ("binder", "generic"):
            facts.append(Fact("Redesign", "Binder" if data["type"] == "binder" else "Generic"))
    facts += _filters(data)
    space = text(data.get("chemical_space"))
    if space:
        facts.append(Fact("Chemical space", CHEMICAL_SPACES.get(space, space)))
    target = as_dict(data.get("target"))
    pockets = as_dict(target.get("pocket_residues"))
    if pockets:
        total = sum(len(as_list(v)) for v in pockets.values())
        facts.append(Fact("Pocket", f"{total} residues on chain"
                          f"{'s' if len(pockets) != 1 else ''} "
                          + ", ".join(str(k) for k in pockets)))
    # Reference ligands are drawn, not counted: ``Provenance.reference_ligands``.
    level = text(as_dict(data.get("molecule_filters")).get("boltz_smarts_catalog_filter_level"))
    if level:
        facts.append(Fact("Structural alert filter", level.capitalize()))
    custom = as_list(as_dict(data.get("molecule_filters")).get("custom_filters"))
    if custom:
        facts.append(Fact("Custom molecule filters", count_phrase(len(custom))))
    said = any(count(progress.get(total)) is not None for _d, total, _v, _o in COUNTERS)
    for key in REQUESTED:
        number = count(data.get(key))
        if number is not None and not said:
            label = "Molecules to score (budget)" if key == "budget" else "Requested"
            facts.append(Fact(label, count_phrase(number)))
    return facts
