"""The two demo predictions: a structure-and-binding run and an ADME panel.

Each builder returns the prediction's inputs, outputs and files (role, filename,
content type, bytes). Prediction artifact roles: ``structure`` (mmCIF), ``archive`` (zip)
and ``ligand_structure`` (SDF) for structure_and_binding; ``report`` (JSON) and ``table``
(CSV) for adme.
"""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import datetime

from app.demo_data import chemistry, proteins
from app.demo_data.archives import build_zip, metrics_json
from app.demo_data.complexes import plddt
from app.demo_data.drafts import protein_entity
from app.demo_data.molecule_pipelines import TARGET, ligand_model, pocket_backbone
from app.demo_data.structures import Chain, comp_ids, mmcif, sdf

JQ1 = dict(chemistry.LIBRARY)["(+)-JQ1"]
ADME_PANEL = ("(+)-JQ1", "molibresib", "imatinib", "gefitinib", "caffeine", "diclofenac",
              "propranolol", "sitagliptin", "olaparib", "loratadine")


def structure_and_binding(prediction_id: str, when: datetime) -> tuple[dict, dict, list]:
    """Return inputs, outputs and files of BRD4 BD1 + (+)-JQ1 co-folding with affinity."""
    rng = random.Random(7007)  # noqa: S311 - demo data, not secrets
    inputs = {
        "entities": [
            protein_entity("A", proteins.TARGETS[TARGET]),
            {"type": "ligand_smiles", "chain_ids": ["B"], "value": JQ1},
        ],
        "binding": {"type": "ligand", "chain_id": "B"},
    }
    metrics = {
        "structure_confidence": 0.912, "ptm": 0.897, "iptm": 0.934,
        "complex_plddt": 0.921, "complex_iplddt": 0.887, "binding_confidence": 0.962,
    }
    # Affinity as log10(IC50 / 1 uM): -1.2 is about 63 nM, in line with JQ1 on BD1.
    affinity = {"log10_ic50_um": -1.2, "ic50_nm": 63.1, "binding_probability": 0.962}
    outputs = {"metrics": metrics, "affinity": affinity}
    bb = pocket_backbone()
    chain = Chain("A", proteins.TARGET_DESCRIPTIONS[TARGET], comp_ids(proteins.TARGETS[TARGET]),
                  bb.residues, plddt(rng, bb.ss, 0.92), bb.ss)
    ligand = ligand_model(JQ1, "(+)-JQ1")
    cif = mmcif(prediction_id, [chain], ligand).encode()
    ligand_sdf = sdf(f"{prediction_id} (+)-JQ1", ligand).encode()
    record = {"inputs": inputs, "outputs": outputs}
    archive = build_zip({f"{prediction_id}.cif": cif, f"{prediction_id}_ligand.sdf": ligand_sdf,
                         "metrics.json": metrics_json(record)}, when)
    files = [
        ("structure", f"{prediction_id}.cif", "chemical/x-mmcif", cif),
        ("ligand_structure", f"{prediction_id}_ligand.sdf", "chemical/x-mdl-sdfile", ligand_sdf),
        ("archive", f"{prediction_id}.zip", "application/zip", archive),
    ]
    return inputs, outputs, files


def adme(prediction_id: str) -> tuple[dict, dict, list]:
    """Return inputs, outputs and files of an ADME panel over ten reference compounds."""
    rng = random.Random(8008)  # noqa: S311 - demo data, not secrets
    smiles_by_name = dict(chemistry.LIBRARY)
    molecules = [{"name": n, "smiles": smiles_by_name[n]} for n in ADME_PANEL]
    rows = [{**m, **chemistry.adme_for(rng, m["smiles"])} for m in molecules]
    inputs = {"molecules": molecules}
    outputs = {
        "results": rows,
        "units": {"lipophilicity": "logD7.4", "permeability": "Caco-2 Papp A-B, 1e-6 cm/s"},
    }
    report = (json.dumps(outputs, indent=2) + "\n").encode()
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=["name", "smiles", "lipophilicity",
                                               "permeability", "solubility"],
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    files = [
        ("report", f"{prediction_id}_adme.json", "application/json", report),
        ("table", f"{prediction_id}_adme.csv", "text/csv", table.getvalue().encode()),
    ]
    return inputs, outputs, files
