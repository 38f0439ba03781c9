"""The molecules a run was asked about, read from its SDK ``input``: targets and binders.

``run_entities(record)`` walks the ``input`` of any pipeline run record the SDK declares
(``ShareLinkReadResponse.pipelines[]``) and returns one ``EntityView`` per entity or
template chain, each on its ``side`` (``target`` or ``binder``) and marked ``designed``
or fixed. ``prediction_entities(record)`` does the same for a structure-and-binding
prediction's ``input.entities`` (the binder side from ``input.binding``).

The shapes are recognised from their fields, not from a kind: a value of a shape we do not
know is skipped, never an error. Data is hostile: nothing here is markup, the templates
escape every string.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.viewer.provenance.values import (
    as_dict,
    as_list,
    count,
    file_name,
    length_phrase,
    spec_length,
    text,
    url_place,
)

# Re-exported: callers read these helpers from here too.
__all__ = ["BINDER", "TARGET", "EntityView", "as_dict", "as_list", "binder_specification_entities",
           "count", "file_name", "length_phrase", "prediction_entities", "run_entities",
           "spec_length", "target_entities", "text", "url_place"]

TARGET = "target"
BINDER = "binder"

# Entity types as people read them (SDK ``type`` values).
TYPE_LABELS = {
    "protein": "Protein",
    "rna": "RNA",
    "dna": "DNA",
    "ligand_ccd": "Ligand (CCD code)",
    "ligand_smiles": "Ligand (SMILES)",
    "glycan": "Glycan",
    "designed_protein": "Designed protein",
    "fusion_protein": "Fusion protein",
    "template_chain": "Chain of the template structure",
    "template_ligand": "Ligand of the template structure",
}
POLYMERS = ("protein", "rna", "dna")
LIGANDS = ("ligand_ccd", "ligand_smiles", "glycan", "template_ligand")
_VALUE_LABELS = {
    "protein": "Sequence",
    "rna": "Sequence",
    "dna": "Sequence",
    "ligand_ccd": "CCD code",
    "ligand_smiles": "SMILES",
    "designed_protein": "Design specification",
}


@dataclass(frozen=True)
class EntityView:
    """One entity of a run's input as the pages show it.

    ``type`` is the SDK's (or ``template_chain`` / ``template_ligand`` for a chain picked
    from a template structure); ``value`` the sequence, SMILES, CCD code or design
    specification ("" when the input has none); ``length`` a phrase ("129 residues",
    "19-24 residues") or ""; ``notes`` short facts (cyclic, epitope residues...).
    """

    type: str
    chain_ids: tuple[str, ...]
    side: str
    designed: bool
    value: str = ""
    length: str = ""
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """Return the entity type as people read it."""
        return TYPE_LABELS.get(self.type, self.type.replace("_", " ").capitalize())

    @property
    def value_label(self) -> str:
        """Return what ``value`` is ("Sequence", "SMILES", "CCD code"...)."""
        return _VALUE_LABELS.get(self.type, "Value")

    @property
    def copy_label(self) -> str:
        """Return what the copy button copies, inside a sentence ("the sequence")."""
        label = self.value_label
        return label if label in ("SMILES", "CCD code") else label.lower()

    @property
    def chains(self) -> str:
        """Return the chain ids joined for reading ("A, B"), or "-"."""
        return ", ".join(self.chain_ids) or "\u2013"

    @property
    def is_ligand(self) -> bool:
        """Return whether the entity is a small molecule or glycan (not a polymer)."""
        return self.type in LIGANDS

    @property
    def role(self) -> str:
        """Return the entity's part in a word: "designed", "target" or "fixed"."""
        if self.designed:
            return "designed"
        return "target" if self.side == TARGET else "fixed"

    @property
    def grouped(self) -> bool:
        """Return whether ``value`` reads best in groups of ten (a plain sequence)."""
        return self.type in POLYMERS


def _chain_ids(entity: dict) -> tuple[str, ...]:
    ids = [c for c in as_list(entity.get("chain_ids")) if isinstance(c, str)]
    if not ids and isinstance(entity.get("chain_id"), str):
        ids = [entity["chain_id"]]
    return tuple(ids)


def _residue_note(name: str, residues) -> str:
    items = as_list(residues)
    return f"{name}: {len(items)} residue{'s' if len(items) != 1 else ''}" if items else ""


def _plain(entity: dict, side: str, designed: bool | None = None,
           notes: tuple[str, ...] = ()) -> EntityView | None:
    """Return the view of an SDK entity (protein, rna, dna, ligand, glycan, designed)."""
    kind = text(entity.get("type"))
    if not kind:
        return None
    value = text(entity.get("value"))
    length = ""
    if kind in POLYMERS and value:
        length = length_phrase(len(value), len(value),
                               "residues" if kind == "protein" else "nucleotides")
    elif kind == "designed_protein":
        span = spec_length(value)
        length = length_phrase(*span) if span else ""
    elif kind == "glycan":
        residues = as_list(entity.get("residues"))
        length = f"{len(residues)} sugar residue{'s' if len(residues) != 1 else ''}" \
            if residues else ""
    extra = list(notes)
    if entity.get("cyclic") is True:
        extra.append("cyclic")
    if as_list(entity.get("modifications")):
        extra.append(f"{len(entity['modifications'])} modification"
                     f"{'s' if len(entity['modifications']) != 1 else ''}")
    return EntityView(kind, _chain_ids(entity), side,
                      kind == "designed_protein" if designed is None else designed,
                      value, length, tuple(n for n in extra if n))


def _motif_ranges(motifs) -> list[tuple[int, int]]:
    """Return the (min, max) designed lengths of design motifs that say them."""
    out = []
    for motif in as_list(motifs):
        span = as_dict(as_dict(motif).get("design_length_range"))
        low, high = count(span.get("min")), count(span.get("max"))
        if low is not None and high is not None:
            out.append((low, high))
    return out


def _from_template(entity: dict, side: str) -> EntityView:
    """Return the view of a chain taken from a template (``type: from_template``)."""
    motifs = as_list(entity.get("design_motifs"))
    notes = []
    if text(entity.get("template_id")):
        notes.append(f"template {entity['template_id']}")
    ranges = _motif_ranges(motifs)
    if ranges:
        notes.append("designed regions: " + ", ".join(length_phrase(a, b) for a, b in ranges))
    elif motifs:
        notes.append(f"{len(motifs)} designed region{'s' if len(motifs) != 1 else ''}")
    for name, key in (("epitope", "epitope_residues"), ("flexible", "flexible_residues"),
                      ("non-binding", "non_binding_residues")):
        notes.append(_residue_note(name, entity.get(key)))
    designed = bool(motifs) or (side == BINDER and entity.get("role") != "target")
    return EntityView("template_chain", _chain_ids(entity), side, designed,
                      notes=tuple(n for n in notes if n))


def _entity(entity, side: str) -> list[EntityView]:
    """Return the views of one entry of an ``entities`` list, whatever its wrapper."""
    entity = as_dict(entity)
    kind = text(entity.get("type"))
    if kind == "no_template" and "entity" in entity:
        notes = (_residue_note("epitope", entity.get("epitope_residues")),
                 "epitope" if entity.get("is_epitope") is True else "",
                 _residue_note("non-binding", entity.get("non_binding_residues")))
        inner = _plain(as_dict(entity.get("entity")), side, notes=tuple(n for n in notes if n))
        return [inner] if inner else []
    if kind == "from_template":
        return [_from_template(entity, side)]
    if kind == "fusion_protein":
        chain = text(entity.get("output_chain_id"))
        segments = as_list(entity.get("segments"))
        return [EntityView("fusion_protein", (chain,) if chain else (), side, True,
                           notes=(f"{len(segments)} segments",) if segments else ())]
    if kind in TYPE_LABELS or kind in ("designed_protein",):
        view = _plain(entity, side)
        return [view] if view else []
    return []


def _template_chains(selection, side: str, designed: bool) -> list[EntityView]:
    """Return the chains picked from a template structure (``chain_selection``)."""
    out = []
    for chain, spec in as_dict(selection).items():
        spec = as_dict(spec)
        if not isinstance(chain, str):
            continue
        if spec.get("chain_type") == "ligand":
            out.append(EntityView("template_ligand", (chain,), side, False))
            continue
        notes = []
        crop = spec.get("crop_residues")
        if isinstance(crop, list):
            notes.append(f"cropped to {len(crop)} residues")
        ranges = _motif_ranges(spec.get("design_motifs"))
        if ranges:
            notes.append("designed regions: " + ", ".join(length_phrase(a, b)
                                                         for a, b in ranges))
        for name, key in (("epitope", "epitope_residues"), ("flexible", "flexible_residues"),
                          ("non-binding", "non_binding_residues")):
            notes.append(_residue_note(name, spec.get(key)))
        out.append(EntityView("template_chain", (chain,), side, designed,
                              notes=tuple(n for n in notes if n)))
    return out


def target_entities(target) -> list[EntityView]:
    """Return the target side of an input: template chains or entities."""
    target = as_dict(target)
    if "chain_selection" in target:
        return _template_chains(target.get("chain_selection"), TARGET, False)
    return [v for e in as_list(target.get("entities")) for v in _entity(e, TARGET)]


def binder_specification_entities(spec) -> list[EntityView]:
    """Return the binder side of a protein design ``binder_specification`` (or ``binder``)."""
    spec = as_dict(spec)
    kind = spec.get("type")
    if kind == "structure_template" or "chain_selection" in spec:
        return _template_chains(spec.get("chain_selection"), BINDER, True)
    if kind in ("uniformly_sampled_specifications", "uniformly_sampled"):
        subs = as_list(spec.get("binder_specifications")) + as_list(spec.get("specifications"))
        return [v for sub in subs for v in binder_specification_entities(sub)]
    return [v for e in as_list(spec.get("entities")) for v in _entity(e, BINDER)]


def _redesign_chains(config) -> list[EntityView]:
    """Return the chains of a protein redesign's ``chains_config``."""
    config = as_dict(config)
    out = []
    for side, key in ((TARGET, "target_chains"), (BINDER, "binder_chains")):
        for chain, spec in as_dict(config.get(key)).items():
            spec = as_dict(spec)
            chain_type = text(spec.get("chain_type"))
            if not isinstance(chain, str):
                continue
            designed = side == BINDER and chain_type == "protein"
            kind = chain_type if chain_type in POLYMERS else "template_ligand"
            residues = as_list(spec.get("designed_residues"))
            notes = (f"{len(residues)} designed residues",) if residues else ()
            out.append(EntityView(kind, (chain,), side, designed, notes=notes))
    return out


def _sequence_redesign(entities) -> list[EntityView]:
    """Return the chains of a protein sequence redesign (``from_template`` with a role)."""
    out = []
    for entity in as_list(entities):
        entity = as_dict(entity)
        chain = text(entity.get("chain_id"))
        if not chain:
            continue
        side = TARGET if entity.get("role") == "target" else BINDER
        motifs = as_list(entity.get("design_motifs"))
        residues = sum(len(as_list(as_dict(m).get("residues"))) for m in motifs)
        notes = (f"{residues} residues redesigned",) if residues else ()
        out.append(EntityView("template_chain", (chain,), side, side == BINDER, notes=notes))
    return out


def run_entities(record) -> list[EntityView]:
    """Return the entities of a pipeline run's ``input``, targets first ([] when unknown)."""
    data = as_dict(as_dict(record).get("input"))
    if not data:
        return []
    if "chains_config" in data:
        views = _redesign_chains(data.get("chains_config"))
    elif "structure" in data and "entities" in data:
        views = _sequence_redesign(data.get("entities"))
    elif "binder_specification" in data:
        views = (target_entities(data.get("target"))
                 + binder_specification_entities(data.get("binder_specification")))
    elif data.get("type") == "binder" and "binder" in data:
        views = target_entities(data.get("target")) + binder_specification_entities(
            data.get("binder"))
    elif data.get("type") == "generic":
        views = [v for e in as_list(data.get("entities")) for v in _entity(e, BINDER)]
    else:
        views = target_entities(data.get("target"))
    return sorted(views, key=lambda v: v.side != TARGET)


def prediction_entities(record) -> list[EntityView]:
    """Return a structure-and-binding prediction's entities; binders from ``binding``."""
    data = as_dict(as_dict(record).get("input"))
    binding = as_dict(data.get("binding"))
    binders = set(c for c in as_list(binding.get("binder_chain_ids")) if isinstance(c, str))
    if isinstance(binding.get("binder_chain_id"), str):
        binders.add(binding["binder_chain_id"])
    out = []
    for entity in as_list(data.get("entities")):
        view = _plain(as_dict(entity), TARGET, designed=False)
        if view is None or view.type not in TYPE_LABELS:
            continue
        if binders & set(view.chain_ids):
            view = EntityView(view.type, view.chain_ids, BINDER, False, view.value, view.length,
                              view.notes)
        elif not binding:
            view = EntityView(view.type, view.chain_ids, "", False, view.value, view.length,
                              view.notes)
        out.append(view)
    return out
