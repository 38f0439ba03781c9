"""Builders of the four protein pipelines: design, redesign, sequence redesign, screen.

Each builder takes its own seeded ``random.Random`` so that changing one pipeline does not
reshuffle the others. Binders are chain A, the target chain B, as in the entities.
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace
from datetime import datetime

import numpy as np

from app.store.catalog import NewResult
from app.synthetic import chemistry, inputs, metrics, placements, proteins
from app.synthetic.bundles import Backbone
from app.synthetic.complexes import (
    place_glycan,
    plddt,
    protein_backbone,
    segments_for_length,
)
from app.synthetic.drafts import (
    PipelineDraft,
    ResultDraft,
    ccd_modification,
    protein_entity,
    timeline,
)
from app.synthetic.structures import Chain, Ligand, comp_ids, mmcif


def _topologies(rng: random.Random, count: int, low: int, high: int) -> list:
    """Return ``count`` binder backbones with lengths in [low, high]."""
    out = []
    for i in range(count):
        length = rng.randint(low, high)
        out.append(protein_backbone(segments_for_length(rng, length), seed=100 + i))
    return out


def target_backbone(name: str):
    """Return the (cached) helix-bundle backbone of a named target."""
    sequence = proteins.TARGETS[name]
    rng = random.Random(sum(map(ord, name)))  # noqa: S311 - demo data, not secrets
    return protein_backbone(segments_for_length(rng, len(sequence)), seed=7)


def _with_cysteine(rng: random.Random, sequence: str, rate: float) -> str:
    """Put one surface cysteine into some designs (they get the unpaired warning)."""
    if rng.random() >= rate:
        return sequence
    i = rng.randrange(5, len(sequence) - 5)
    return sequence[:i] + "C" + sequence[i + 1 :]


def _complex_cif(entry_id: str, rng, binder_bb, binder_seq, target_name, confidence,
                 binder_mods=None, glycan: bool = False, pose: str | None = None) -> str:
    """Return the mmCIF of binder (A) placed on the named target (B), glycan C if asked.

    Each design's pose is its own (``placements``: one of a few epitopes, a small jitter),
    seeded by its sequence and confidence: the same design gets the same pose every seed.
    ``pose`` seeds it instead: redesigns of one parent keep the parent's pose.
    """
    target_bb = target_backbone(target_name)
    target_seq = proteins.TARGETS[target_name]
    seed = pose or f"{target_name}|{binder_seq}|{confidence!r}"
    docked, rotation, translation = placements.place_target(binder_bb, target_bb, seed)
    chains = [
        Chain("A", "designed binder", comp_ids(binder_seq, binder_mods), binder_bb.residues,
              plddt(rng, binder_bb.ss, confidence), binder_bb.ss),
        Chain("B", proteins.TARGET_DESCRIPTIONS[target_name], comp_ids(target_seq), docked,
              plddt(rng, target_bb.ss, 0.86), target_bb.ss),
    ]
    sugar = _glycan(target_bb, docked, binder_bb, rotation, translation) if glycan else None
    return mmcif(entry_id, chains, sugar)


# PD-L1 Asn35 (index 17 of the IgV-domain construct) carries an N-linked glycan.
PD_L1_GLYCOSITE = 17


@functools.cache
def _glycan_on(target: Backbone) -> Ligand:
    """Return NAG linked to the PD-L1 glycosylation site, in the target's own frame."""
    elements, charges, xyz, bonds = chemistry.conformer(chemistry.CCD_SMILES["NAG"])
    names = chemistry.CCD_ATOM_NAMES["NAG"]
    placed = place_glycan(target.residues, PD_L1_GLYCOSITE, xyz, names.index("C1"))
    return Ligand(chemistry.LIGAND_CCD["NAG"], tuple(elements), tuple(charges), placed,
                  tuple(bonds), comp_id="NAG", names=names)


def _glycan(target: Backbone, docked: tuple, binder: Backbone, rotation, translation
            ) -> Ligand:
    """Return the glycan moved with the target; placed anew only if it meets the binder."""
    sugar = _glycan_on(target)
    xyz = placements.moved(sugar.xyz, rotation, translation)
    near = np.asarray(xyz)[:, None, :] - placements.binder_atoms(binder)[None, :, :]
    if np.einsum("ijk,ijk->ij", near, near).min() <= 9.0:  # within 3 A: step out past it
        names = sugar.names
        xyz = place_glycan(docked, PD_L1_GLYCOSITE, list(xyz), names.index("C1"),
                           binder.residues)
    return replace(sugar, xyz=tuple(xyz))


def _nag_entity() -> dict:
    return {"type": "ligand_ccd", "chain_ids": ["C"], "value": "NAG"}


def _binder_result(rng, pipeline_id, rid, created, bb, seq, target_name, *, cyclic=False,
                   mods=None, variant=None, sheet=0, quality_mean=0.0,
                   glycan=False, pose: str | None = None) -> ResultDraft:
    quality = rng.gauss(quality_mean, 1.0)
    m = metrics.binder_metrics(rng, quality, bb.ss, sheet)
    warnings = metrics.protein_warnings(rng, m, seq) or None
    entities = [
        protein_entity("A", seq, cyclic=cyclic, modifications=mods),
        protein_entity("B", proteins.TARGETS[target_name]),
    ]
    if glycan:
        entities.append(_nag_entity())
    cif = _complex_cif(rid, rng, bb, seq, target_name, m["structure_confidence"], mods,
                       glycan, pose)
    result = NewResult(id=rid, pipeline_id=pipeline_id, created_at=created, metrics=m,
                       variant=variant, entities=entities, warnings=warnings)
    return ResultDraft(result, cif)


def protein_design(pipeline_id: str, start: datetime, end: datetime, count: int = 260,
                   requested: int | None = None):
    """De novo helical miniprotein binders (60-120 residues) against IL-6.

    ``requested`` designs were asked for (default: ``count``); a run that made fewer was
    stopped by its user (the demo's: 260 of 300).
    """
    rng = random.Random(1001)  # noqa: S311 - demo data, not secrets
    backbones = _topologies(rng, 8, DESIGN_LENGTHS[0], DESIGN_LENGTHS[1])
    drafts = []
    for rid, created in timeline(start, end, count):
        bb = rng.choice(backbones)
        seq = _with_cysteine(rng, proteins.design_sequence(rng, bb.regions), 0.05)
        drafts.append(_binder_result(rng, pipeline_id, rid, created, bb, seq, "IL-6"))
    total = count if requested is None else max(requested, count)
    return PipelineDraft(
        kind="protein_design",
        name="IL-6 miniprotein binders, round 1",
        input=design_input(total),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_proteins_to_generate": total},
        status="stopped" if total > count else "succeeded",
    )


# The binder length range of the IL-6 design (its backbones are built within it).
DESIGN_LENGTHS = (60, 120)


def design_input(num_proteins: int) -> dict:
    """Return the IL-6 design's input: target chain B as in its structures, binder A."""
    return inputs.protein_design(
        [protein_entity("B", proteins.TARGETS["IL-6"])], binder_chain="A",
        min_length=DESIGN_LENGTHS[0], max_length=DESIGN_LENGTHS[1], modality="custom_protein",
        num_proteins=num_proteins)


# The template both redesigns start from: HX-017 (chain A) bound to PD-L1 (chain B).
PARENT_STRUCTURE = "HX-017_PD-L1.cif"


# Redesigns change the parent's sequence on its backbone, bound as the parent is: one pose.
PARENT_POSE = "PD-L1|redesign parent"


def _parent():
    """Return the backbone and sequence of binder HX-017, the parent of both redesigns."""
    rng = random.Random(17)  # noqa: S311 - demo data, not secrets
    bb = protein_backbone(segments_for_length(rng, 84), seed=300)
    return bb, proteins.design_sequence(rng, bb.regions)


def protein_redesign(pipeline_id: str, start: datetime, end: datetime, count: int = 24):
    """Redesigns of one PD-L1 binder; some selenomethionine (MSE) variants for phasing."""
    rng = random.Random(2002)  # noqa: S311 - demo data, not secrets
    bb, parent = _parent()
    drafts = []
    for rid, created in timeline(start, end, count):
        seq = proteins.mutate(rng, parent, bb.regions, rng.randint(2, 9))
        mets = [i for i, aa in enumerate(seq) if aa == "M" and i > 0]
        mods = [ccd_modification(i, "MSE") for i in mets] if mets and rng.random() < 0.2 else []
        drafts.append(_binder_result(rng, pipeline_id, rid, created, bb, seq, "PD-L1",
                                     mods=mods, quality_mean=0.5, pose=PARENT_POSE))
    structure = inputs.input_file(pipeline_id, PARENT_STRUCTURE, start)
    return PipelineDraft(
        kind="protein_redesign",
        name="PD-L1 binder HX-017 redesign",
        input=inputs.protein_redesign(
            structure, binder_chain="A", designed_residues=proteins.mutable_positions(
                bb.regions), target_chains={"B": "protein"}, num_proteins=count),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_proteins_to_generate": count},
    )


def protein_sequence_redesign(pipeline_id: str, start: datetime, end: datetime,
                              count: int = 30):
    """Sequence-only redesigns of binder HX-017 (chain A) on its PD-L1 complex (chain B).

    Cysteines are excluded, as the input's design filter says.
    """
    rng = random.Random(3003)  # noqa: S311 - demo data, not secrets
    bb, parent = _parent()
    drafts = []
    for rid, created in timeline(start, end, count):
        seq = proteins.mutate(rng, parent, bb.regions, rng.randint(4, 14))
        mods = _phospho_sites(rng, seq) if rng.random() < 0.2 else []
        drafts.append(_binder_result(rng, pipeline_id, rid, created, bb, seq, "PD-L1",
                                     mods=mods, variant="binder", quality_mean=0.3,
                                     pose=PARENT_POSE))
    structure = inputs.input_file(pipeline_id, PARENT_STRUCTURE, start)
    return PipelineDraft(
        kind="protein_sequence_redesign",
        name="HX-017 sequence redesign (solubility and binding)",
        input=inputs.sequence_redesign(
            structure, binder_chain="A", target_chain="B", num_proteins=count,
            filters=[{"type": "excluded_amino_acids", "amino_acids": ["C"]}]),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_proteins_to_generate": count},
    )


def _phospho_sites(rng: random.Random, seq: str) -> list[dict]:
    """Return one phospho-serine/threonine modification at a real S or T, if any."""
    sites = [(i, "SEP" if aa == "S" else "TPO") for i, aa in enumerate(seq) if aa in "ST"]
    if not sites:
        return []
    i, code = rng.choice(sites)
    return [ccd_modification(i, code)]


def protein_library_screen(pipeline_id: str, start: datetime, end: datetime, count: int = 36):
    """A plate-based miniprotein library screened against glycosylated PD-L1 (NAG on Asn35).

    The fixed entities are the target and its glycan; ids are plate wells.
    """
    rng = random.Random(4004)  # noqa: S311 - demo data, not secrets
    backbones = _topologies(rng, 5, 60, 96)
    wells = [f"{row}{col:02d}" for row in "ABCDEFGH" for col in range(1, 13)]
    drafts = []
    for n, (rid, created) in enumerate(timeline(start, end, count)):
        bb = backbones[n % len(backbones)]
        seq = _with_cysteine(rng, proteins.design_sequence(rng, bb.regions), 0.04)
        draft = _binder_result(rng, pipeline_id, rid, created, bb, seq, "PD-L1",
                               quality_mean=-0.3, glycan=True)
        plate, well = divmod(n * 7 % 192, 96)
        external = f"HXL-P{plate + 1:02d}-{wells[well]}"
        drafts.append(replace(draft, result=replace(draft.result, external_id=external)))
    failed = inputs.failed_count(count)
    return PipelineDraft(
        kind="protein_library_screen",
        name="PD-L1 miniprotein library screen, plates 1-2",
        input=library_screen_input(pipeline_id, start),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_proteins_to_screen": count + failed, "num_proteins_failed": failed},
    )


# The screened library: hit-picked wells of plates 1-2 of the HXL miniprotein library.
SCREEN_LIBRARY = "HXL_miniproteins_plates_01-02.fasta"


def library_screen_input(pipeline_id: str, created: datetime) -> dict:
    """Return the screen's input: PD-L1 (B) glycosylated at Asn35 (NAG, C), the library."""
    return inputs.protein_library_screen(
        [protein_entity("B", proteins.TARGETS["PD-L1"]), _nag_entity()],
        inputs.input_file(pipeline_id, SCREEN_LIBRARY, created),
        bonds=[inputs.glycosylation_bond("B", PD_L1_GLYCOSITE, "C")])
