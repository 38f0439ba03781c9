"""The two demo predictions: a structure-and-binding run and an ADME panel.

Each builder returns the prediction's inputs, outputs and files (role, filename,
content type, bytes). A file's role is the ``name`` of its entry in the API's
``artifacts`` list and the ``<name>`` of the viewer's download route.

Artifact names of a structure_and_binding prediction (one structure file per sample):

- ``structure_sample_<n>`` (mmCIF): sample ``n``'s structure, ``n`` = 1, 2, ... being the
  sample's 1-based position in ``outputs.all_sample_results``. The viewer's
  ``?sample=<n>`` and ``app.viewer.pages.predictions.sample_structure_artifacts`` use the same
  numbers. Samples differ in the ligand's pose and the per-residue pLDDT.
- ``structure`` (mmCIF): the best sample's structure (``outputs.best_sample``), the same
  bytes as its ``structure_sample_<n>``; kept for clients that want "the" structure.
- ``ligand_structure`` (SDF): the best sample's ligand; ``archive`` (zip): every file.

Samples are listed best first (by structure confidence), so here the best is sample 1.
An adme prediction has ``report`` (JSON) and ``table`` (CSV).
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from datetime import datetime

from app.synthetic import chemistry, proteins
from app.synthetic import geometry as g
from app.synthetic.archives import build_zip, metrics_json
from app.synthetic.complexes import place_ligand, plddt
from app.synthetic.drafts import protein_entity
from app.synthetic.inputs import ligand_smiles
from app.synthetic.molecule_pipelines import TARGET, pocket_backbone
from app.synthetic.structures import Chain, Ligand, comp_ids, mmcif, sdf

JQ1 = dict(chemistry.LIBRARY)["(+)-JQ1"]
ADME_PANEL = ("(+)-JQ1", "molibresib", "imatinib", "gefitinib", "caffeine", "diclofenac",
              "propranolol", "sitagliptin", "olaparib", "loratadine")
ADME_UNITS = {"lipophilicity": "logD at pH 7.4",
              "permeability": "Caco-2 Papp A-B, 1e-6 cm/s"}
# How far each sample's ligand is turned from the best pose before it is docked again
# (degrees, about a fixed tilted axis): sample 1 keeps the pose found with JQ1.
SAMPLE_TURNS = (0.0, 38.0, 103.0)
_TURN_AXIS = g.unit((0.3, 1.0, 0.45))


def sample_artifact_name(number: int) -> str:
    """Return the artifact name of sample ``number``'s structure (1-based)."""
    return f"structure_sample_{number}"


def _sample_metrics(rng: random.Random, quality: float) -> dict:
    """Return one sample's confidence metrics (PDE values in Angstroms, the rest 0-1)."""
    plddt = min(0.97, 0.86 + 0.05 * quality + rng.gauss(0, 0.01))
    iptm = min(0.97, 0.86 + 0.06 * quality + rng.gauss(0, 0.01))
    return {
        "complex_ipde": round(1.2 + 1.5 * (1 - iptm) * 4 + rng.gauss(0, 0.1), 2),
        "complex_iplddt": round(plddt - 0.03, 4),
        "complex_pde": round(1.6 + 1.5 * (1 - plddt) * 4 + rng.gauss(0, 0.1), 2),
        "complex_plddt": round(plddt, 4),
        "iptm": round(iptm, 4),
        "ligand_iptm": round(iptm - 0.01, 4),
        "protein_iptm": round(min(0.98, iptm + 0.02), 4),
        "ptm": round(min(0.97, plddt - 0.02), 4),
        "structure_confidence": round(0.8 * plddt + 0.2 * iptm, 4),
    }


def structure_and_binding(prediction_id: str, when: datetime) -> tuple[dict, dict, list]:
    """Return inputs, outputs and files of BRD4 BD1 + (+)-JQ1 co-folding with binding.

    Input and output are the SDK's (``boltz-2.1`` structure and binding): the protein is
    chain A and JQ1 chain B, as in the structure files. The output is stored without its
    file objects: the service adds ``structure`` (and ``ligand_structure``) of each sample
    and ``archive`` from the artifacts below when it answers.
    """
    rng = random.Random(7007)  # noqa: S311 - demo data, not secrets
    inputs = {
        "entities": [
            protein_entity("A", proteins.TARGETS[TARGET]),
            ligand_smiles("B", JQ1),
        ],
        "binding": {"type": "ligand_protein_binding", "binder_chain_id": "B"},
        "num_samples": 3,
    }
    samples = sorted((_sample_metrics(rng, q) for q in (1.0, 0.6, 0.2)),
                     key=lambda m: -m["structure_confidence"])
    outputs = {
        "best_sample": {"metrics": samples[0]},
        "all_sample_results": [{"metrics": m} for m in samples],
        # JQ1 binds BD1 at about 50 nM: a confident hit with a high optimisation score.
        "binding_metrics": {"type": "ligand_protein_binding_metrics",
                            "binding_confidence": 0.962, "optimization_score": 2.41},
    }
    structures = [_sample_structure(rng, f"{prediction_id}_sample_{n}", m, turn)
                  for n, (m, turn) in enumerate(zip(samples, SAMPLE_TURNS, strict=True), 1)]
    best_cif, best_ligand = structures[0]
    ligand_sdf = sdf(f"{prediction_id} (+)-JQ1", best_ligand).encode()
    record = {"inputs": inputs, "outputs": outputs}
    members = {f"{prediction_id}_sample_{n}.cif": cif
               for n, (cif, _ligand) in enumerate(structures, 1)}
    archive = build_zip({**members, f"{prediction_id}_ligand.sdf": ligand_sdf,
                         "metrics.json": metrics_json(record)}, when)
    files = [
        ("structure", f"{prediction_id}.cif", "chemical/x-mmcif", best_cif),
        *((sample_artifact_name(n), name, "chemical/x-mmcif", cif)
          for n, (name, cif) in enumerate(members.items(), 1)),
        ("ligand_structure", f"{prediction_id}_ligand.sdf", "chemical/x-mdl-sdfile", ligand_sdf),
        ("archive", f"{prediction_id}.zip", "application/zip", archive),
    ]
    return inputs, outputs, files


def _sample_structure(rng: random.Random, entry_id: str, metrics: dict,
                      turn: float) -> tuple[bytes, Ligand]:
    """Return one sample's mmCIF and ligand: JQ1 turned by ``turn`` degrees and re-docked.

    Docking the turned conformer again (``place_ligand`` with the JQ1 probe) keeps every
    sample in the same pocket and in contact without clashes; the pLDDT follows the
    sample's own confidences.
    """
    elements, charges, xyz, bonds = chemistry.conformer(JQ1)
    centre = g.centroid(xyz)
    turned = [g.add(centre, _rotated(g.sub(p, centre), turn)) for p in xyz]
    placed = place_ligand(pocket_backbone(), turned, chemistry.conformer(JQ1)[2])
    ligand = Ligand("(+)-JQ1", tuple(elements), tuple(charges), placed, tuple(bonds),
                    plddt=round(100 * metrics["complex_iplddt"], 2))
    bb = pocket_backbone()
    chain = Chain("A", proteins.TARGET_DESCRIPTIONS[TARGET], comp_ids(proteins.TARGETS[TARGET]),
                  bb.residues, plddt(rng, bb.ss, metrics["complex_plddt"]), bb.ss)
    return mmcif(entry_id, [chain], ligand).encode(), ligand


def _rotated(v: g.Vec, degrees: float) -> g.Vec:
    """Return ``v`` turned by ``degrees`` about ``_TURN_AXIS`` (Rodrigues' formula)."""
    theta = math.radians(degrees)
    c, s = math.cos(theta), math.sin(theta)
    k = _TURN_AXIS
    return g.add(g.add(g.scale(v, c), g.scale(g.cross(k, v), s)),
                 g.scale(k, g.dot(k, v) * (1.0 - c)))


def adme(prediction_id: str) -> tuple[dict, dict, list]:
    """Return inputs, outputs and files of an ADME panel over ten reference compounds.

    Shapes are the SDK's (``adme-v1``): ``molecules`` (id, SMILES) in, one ``molecules``
    entry per input out with ``status`` and ``adme``. The units are the README's (and the
    report file's), not part of the output.
    """
    rng = random.Random(8008)  # noqa: S311 - demo data, not secrets
    smiles_by_name = dict(chemistry.LIBRARY)
    molecules = [{"id": name, "smiles": smiles_by_name[name]} for name in ADME_PANEL]
    results = [
        {**m, "status": "succeeded", "adme": chemistry.adme_for(rng, m["smiles"])}
        for m in molecules
    ]
    inputs = {"molecules": molecules}
    outputs = {"molecules": results}
    report = (json.dumps({**outputs, "units": ADME_UNITS}, indent=2) + "\n").encode()
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["id", "smiles", "lipophilicity", "permeability", "solubility"])
    for r in results:
        writer.writerow([r["id"], r["smiles"], r["adme"]["lipophilicity"],
                         r["adme"]["permeability"], r["adme"]["solubility"]])
    files = [
        ("report", f"{prediction_id}_adme.json", "application/json", report),
        ("table", f"{prediction_id}_adme.csv", "text/csv", table.getvalue().encode()),
    ]
    return inputs, outputs, files
