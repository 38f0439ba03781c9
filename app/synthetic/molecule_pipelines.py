"""Builders of the three small-molecule pipelines, all against BRD4 bromodomain 1.

The design run is an analog series of (+)-JQ1; the screen runs an approved-drug plate in
which the two BET inhibitors (JQ1, molibresib) score as hits and the rest mostly do not.
ADME and ligand SDF files are attached to some results only, as the spec allows. The
exploration scores a BET-focused library, most promising molecules first (no ADME).
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime

from app.store.catalog import NewResult
from app.synthetic import chemistry, inputs, metrics, proteins
from app.synthetic.complexes import place_ligand, plddt, protein_backbone, segments_for_length
from app.synthetic.drafts import PipelineDraft, ResultDraft, protein_entity, timeline
from app.synthetic.structures import Chain, Ligand, comp_ids, mmcif, sdf

TARGET = "BRD4-BD1"
BET_INHIBITORS = ("(+)-JQ1", "molibresib")
JQ1_SMILES = dict(chemistry.LIBRARY)["(+)-JQ1"]


def pocket_backbone():
    """Return the (cached) backbone of the BRD4 BD1 chain."""
    rng = random.Random(44)  # noqa: S311 - demo data, not secrets
    return protein_backbone(segments_for_length(rng, len(proteins.TARGETS[TARGET])), seed=44)


def ligand_model(smiles: str, description: str) -> Ligand:
    """Return the ligand of ``smiles`` placed in the BRD4 BD1 site (found with JQ1)."""
    elements, charges, xyz, bonds = chemistry.conformer(smiles)
    probe = chemistry.conformer(dict(chemistry.LIBRARY)["(+)-JQ1"])[2]
    placed = place_ligand(pocket_backbone(), xyz, probe)
    return Ligand(description, tuple(elements), tuple(charges), placed, tuple(bonds))


def _draft(rng, pipeline_id, rid, created, smiles, name, quality, *, adme_rate, sdf_rate,
           external_id=None) -> ResultDraft:
    m = metrics.small_molecule_metrics(rng, quality)
    warnings = metrics.small_molecule_warnings(rng, m, smiles) or None
    adme = chemistry.adme_for(rng, smiles) if rng.random() < adme_rate else None
    ligand = replace(ligand_model(smiles, name), plddt=round(100 * m["complex_iplddt"], 2))
    bb = pocket_backbone()
    chain = Chain("A", proteins.TARGET_DESCRIPTIONS[TARGET], comp_ids(proteins.TARGETS[TARGET]),
                  bb.residues, plddt(rng, bb.ss, m["complex_plddt"]), bb.ss)
    cif = mmcif(rid, [chain], ligand)
    ligand_sdf = sdf(f"{rid} {name}", ligand) if rng.random() < sdf_rate else None
    result = NewResult(id=rid, pipeline_id=pipeline_id, created_at=created, metrics=m,
                       warnings=warnings, smiles=smiles, adme=adme, external_id=external_id)
    return ResultDraft(result, cif, ligand_sdf)


def small_molecule_design(pipeline_id: str, start: datetime, end: datetime, count: int = 28):
    """Lead optimisation around (+)-JQ1: aryl and side-chain analogs."""
    rng = random.Random(5005)  # noqa: S311 - demo data, not secrets
    series = chemistry.design_series(rng, count)
    drafts = [
        _draft(rng, pipeline_id, rid, created, smiles, f"JQ1 analog {n + 1}",
               rng.gauss(0.6, 0.7), adme_rate=0.6, sdf_rate=0.6)
        for n, ((rid, created), smiles) in enumerate(zip(timeline(start, end, count), series,
                                                         strict=True))
    ]
    return PipelineDraft(
        kind="small_molecule_design",
        name="BRD4 BD1 lead optimisation around (+)-JQ1",
        input=inputs.small_molecule_design(target(), count),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_molecules_to_generate": count},
    )


def target() -> dict:
    """Return the target of every BRD4 BD1 run: chain A as in its structures, JQ1 as hint."""
    return inputs.molecule_target([protein_entity("A", proteins.TARGETS[TARGET])],
                                  reference_ligands=[JQ1_SMILES])


def plate_well(n: int, count: int) -> str:
    """Return the catalog well of the ``n``-th of ``count`` screened compounds.

    Plates hold 80 compounds (rows A-H, columns 2-11; 1 and 12 are controls). The plate
    number has as many digits as the last plate needs (at least two), so the ids of a
    screen of any size sort in plate order.
    """
    width = max(2, len(str((count - 1) // 80 + 1)))
    return f"L1300-{n // 80 + 1:0{width}d}-{'ABCDEFGH'[n // 10 % 8]}{n % 10 + 2:02d}"


def small_molecule_library_screen(pipeline_id: str, start: datetime, end: datetime,
                                  count: int | None = None):
    """An approved-drug plate screened against BRD4 BD1; ids are catalog plate wells.

    ``count`` keeps only the plate's first wells (test-mode data wants a few results).
    """
    rng = random.Random(6006)  # noqa: S311 - demo data, not secrets
    library = list(chemistry.LIBRARY)[:count]
    drafts = []
    for n, ((rid, created), (name, smiles)) in enumerate(
        zip(timeline(start, end, len(library)), library, strict=True)
    ):
        quality = rng.gauss(1.6, 0.3) if name in BET_INHIBITORS else rng.gauss(-0.9, 0.6)
        external = plate_well(n, len(library))
        drafts.append(_draft(rng, pipeline_id, rid, created, smiles, name, quality,
                             adme_rate=0.5, sdf_rate=0.35, external_id=external))
    failed = inputs.failed_count(len(library))
    return PipelineDraft(
        kind="small_molecule_library_screen",
        name="BRD4 BD1 approved-drug screen (plate L1300-01)",
        input=inputs.small_molecule_library_screen(
            target(), inputs.input_file(pipeline_id, "L1300-01_approved_drugs.csv", start)),
        created_at=start, completed_at=end, results=drafts,
        progress={"total_molecules_to_screen": len(library) + failed,
                  "num_molecules_failed": failed},
    )


# The explored library: a BET-focused set (library drugs, the JQ1 series and more).
EXPLORE_LIBRARY = "https://inputs.demo.invalid/libraries/bet_focused_560.csv"
EXPLORE_LIBRARY_SIZE = 560
# Rejected before scoring, out of the submitted file's rows.
EXPLORE_REJECTED = {"duplicate_count": 6, "filtered_count": 0, "invalid_count": 2}


def small_molecule_explore(pipeline_id: str, start: datetime, end: datetime,
                           count: int = 38):
    """Explore a BET-focused library against BRD4 BD1: the best candidates scored first.

    An exploration picks each molecule to score from what it scored before, so its
    results are rich in JQ1 analogs and BET inhibitors. Records are library-screen
    records without ADME; ids are the library's compound ids.
    """
    rng = random.Random(9009)  # noqa: S311 - demo data, not secrets
    pool = _explore_pool()
    picked = rng.sample(pool[:count + 8], count) if count + 8 <= len(pool) else pool[:count]
    picked.sort(key=lambda item: item[2], reverse=True)  # most promising scored first
    drafts = []
    for (rid, created), (name, smiles, quality, compound) in zip(
            timeline(start, end, count), picked, strict=True):
        drafts.append(_draft(rng, pipeline_id, rid, created, smiles, name,
                             rng.gauss(quality, 0.4), adme_rate=0.0, sdf_rate=0.3,
                             external_id=compound))
    failed = inputs.failed_count(count)
    return PipelineDraft(
        kind="small_molecule_explore",
        name="BRD4 BD1 exploration of a BET-focused library",
        input=inputs.small_molecule_explore(target(), library_url=EXPLORE_LIBRARY,
                                            budget=count + failed),
        created_at=start, completed_at=end, results=drafts,
        progress={"phase": "scoring", "total_molecules_to_score": count + failed,
                  "num_molecules_failed": failed, "library_size": EXPLORE_LIBRARY_SIZE,
                  "rejection_summary": dict(EXPLORE_REJECTED)},
    )


def _explore_pool() -> list[tuple[str, str, float, str]]:
    """Return (name, SMILES, expected quality, compound id) of the library's known members.

    JQ1 analogs and BET inhibitors first (an exploration reaches them early), then the
    other drugs; compound ids are the library file's, in its own order.
    """
    library = dict(chemistry.LIBRARY)
    series = [s for s in chemistry.series_smiles() if s not in library.values()]
    members = [*((name, s) for name, s in library.items()),
               *((f"JQ1 analog {i + 1}", s) for i, s in enumerate(series))]
    ranked = []
    for n, (name, smiles) in enumerate(members):
        if name in BET_INHIBITORS:
            quality = 1.6
        elif name.startswith("JQ1 analog"):
            quality = 0.7
        else:
            quality = -0.8
        ranked.append((name, smiles, quality, f"BETF-{(n * 37) % 560 + 1:04d}"))
    ranked.sort(key=lambda item: -item[2])
    return ranked
