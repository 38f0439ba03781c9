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

    Shapes follow the service's structure-and-binding records: ``entities`` and
    ``binding`` in, ``best_sample`` / ``all_sample_results`` metrics and
    ``binding_metrics`` out (file URLs are the prediction's artifacts instead).
    """
    rng = random.Random(7007)  # noqa: S311 - demo data, not secrets
    inputs = {
        "entities": [
            protein_entity("A", proteins.TARGETS[TARGET]),
            {"type": "ligand_smiles", "chain_ids": ["B"], "value": JQ1},
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
    bb = pocket_backbone()
    chain = Chain("A", proteins.TARGET_DESCRIPTIONS[TARGET], comp_ids(proteins.TARGETS[TARGET]),
                  bb.residues, plddt(rng, bb.ss, samples[0]["complex_plddt"]), bb.ss)
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
    """Return inputs, outputs and files of an ADME panel over ten reference compounds.

    Shapes follow the service's ADME records: ``molecules`` (id, SMILES) in, one
    ``molecules`` entry per input out with ``status`` and ``adme``.
    """
    rng = random.Random(8008)  # noqa: S311 - demo data, not secrets
    smiles_by_name = dict(chemistry.LIBRARY)
    molecules = [{"id": name, "smiles": smiles_by_name[name]} for name in ADME_PANEL]
    results = [
        {**m, "status": "succeeded", "adme": chemistry.adme_for(rng, m["smiles"])}
        for m in molecules
    ]
    inputs = {"molecules": molecules}
    outputs = {
        "molecules": results,
        "units": {"lipophilicity": "logD at pH 7.4",
                  "permeability": "Caco-2 Papp A-B, 1e-6 cm/s"},
    }
    report = (json.dumps(outputs, indent=2) + "\n").encode()
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
