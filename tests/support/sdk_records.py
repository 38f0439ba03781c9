"""Run and prediction records of every SDK type, validated by the SDK's own models.

Each builder writes the record as the API would send it, validates it strictly with the
SDK model (``TypeAdapter(Model).validate_python``) and returns its JSON dump: what the
share read carries in ``pipelines[]`` / ``predictions[]``.
"""

from __future__ import annotations

from boltz_api.types import share_link_read_response as sdk
from pydantic import TypeAdapter

IL6 = ("MVPPGEDSKDVAAPHRQPLTSSERIDKQIRYILDGISALRKETCNKSNMCESSKEALAENNLNLPKMAEKDGCFQS"
       "GFNEETCLVKIITGLLEFEVYLEYLQNRFESSEEQARAVQMSTKVLIQFLQKKAKNLDAITTPDPTTNASLLTKLQAQNQ")
KRAS = "MTEYKLVVVGAGGVGKSALTIQLIQNHFVDEYDPTIEDSYRKQVVIDGETCLLDILDTAGQEEYSAMRDQYMRTGEGFLCVF"
URL = "https://files.example/org/inputs/library.csv?X-Signature=secret"
EXPIRES = "2026-12-01T00:00:00Z"


def _base(run_id: str, status: str = "succeeded") -> dict:
    return {
        "id": run_id, "created_at": "2026-05-04T10:00:00Z", "livemode": True,
        "workspace_id": "ws_123", "status": status,
        "started_at": "2026-05-04T10:01:00Z", "completed_at": "2026-05-04T12:06:30Z",
    }


def validated(model, record: dict) -> dict:
    """Return ``record`` validated strictly by the SDK ``model``, dumped as JSON."""
    return TypeAdapter(model).validate_python(record).model_dump(mode="json", by_alias=True)


def protein_design(**changes) -> dict:
    """A protein design run against IL-6 (chain B): 260 of 300 nanobodies generated."""
    record = {
        **_base("pipe_design"), "engine": "boltzprot", "engine_version": "1.0",
        "pipeline": "boltzprot", "pipeline_version": "1.0",
        "input": {
            "num_proteins": 300,
            "target": {"type": "no_template", "entities": [
                {"type": "protein", "chain_ids": ["B"], "value": IL6}]},
            "binder_specification": {"type": "no_template", "modality": "nanobody", "entities": [
                {"type": "designed_protein", "chain_ids": ["A"], "value": "QVQLV5..10WGQG"}]},
        },
        "progress": {"num_proteins_generated": 260, "total_proteins_to_generate": 300,
                     "latest_result_id": "res_9"},
    }
    record.update(changes)
    return validated(sdk.PipelineProteinDesignRunResponse, record)


def protein_library_screen() -> dict:
    """A protein library screen of an uploaded file against a template target."""
    return validated(sdk.PipelineProteinLibraryScreen, {
        **_base("pipe_screen", "running"), "engine": "boltzprot", "engine_version": "1.0",
        "pipeline": "boltzprot", "pipeline_version": "1.0", "completed_at": None,
        "input": {
            "proteins": {"url": "https://files.example/binders.fasta?sig=1",
                         "url_expires_at": EXPIRES},
            "target": {"type": "structure_template",
                       "structure": {"url": "https://files.example/6ohr.cif?sig=1",
                                     "url_expires_at": EXPIRES},
                       "chain_selection": {"C": {"chain_type": "polymer", "crop_residues": "all",
                                                 "epitope_residues": [3, 4, 5]}}},
        },
        "progress": {"num_proteins_screened": 120, "num_proteins_failed": 3,
                     "total_proteins_to_screen": 500},
    })


def protein_redesign() -> dict:
    """A protein redesign (share reads only): binder chain A, target chain B."""
    return validated(sdk.PipelineProteinRedesignRun, {
        **_base("pipe_redesign"), "engine": "boltz-protein-redesign",
        "engine_version": "v2026-03-01", "pipeline": "boltz-protein-redesign",
        "pipeline_version": "v2026-03-01",
        "input": {
            "num_proteins": 50,
            "structure": {"url": "https://files.example/complex.cif?sig=2",
                          "url_expires_at": EXPIRES},
            "chains_config": {
                "binder_chains": {"A": {"chain_type": "protein", "designed_residues": [1, 2]}},
                "target_chains": {"B": {"chain_type": "protein"}, "L": {"chain_type": "ligand"}},
            },
        },
        "progress": {"num_proteins_generated": 50, "total_proteins_to_generate": 50},
    })


def sequence_redesign() -> dict:
    """A binder sequence redesign: chain H redesigned, chain T the target."""
    return validated(sdk.PipelineProteinSequenceRedesignRun, {
        **_base("pipe_seq"), "engine": "boltz-protein-redesign",
        "engine_version": "v2026-07-14", "pipeline": "boltz-protein-redesign",
        "pipeline_version": "v2026-07-14",
        "input": {
            "type": "binder", "num_proteins": 20,
            "structure": {"url": "https://files.example/ab.pdb", "url_expires_at": EXPIRES},
            "entities": [
                {"type": "from_template", "role": "target", "chain_id": "T"},
                {"type": "from_template", "role": "binder", "chain_id": "H",
                 "design_motifs": [{"type": "residues", "residues": [5, 6, 7], "filters": []}]},
            ],
        },
        "progress": {"num_proteins_generated": 4, "total_proteins_to_generate": 20},
    })


def _sm_target() -> dict:
    return {"entities": [{"type": "protein", "chain_ids": ["A"], "value": KRAS}],
            "pocket_residues": {"A": [10, 11, 12]}}


def small_molecule_design() -> dict:
    """A small-molecule design against KRAS (chain A), failed with a message."""
    return validated(sdk.PipelineSmDesignRun, {
        **_base("pipe_smd", "failed"), "engine": "boltzmol", "engine_version": "1.0",
        "pipeline": "boltzmol", "pipeline_version": "1.0", "completed_at": None,
        "stopped_at": "2026-05-04T10:31:00Z",
        "error": {"code": "engine_error", "message": "GPU <out> of memory"},
        "input": {"num_molecules": 1000, "target": _sm_target(), "chemical_space": "enamine_real"},
        "progress": {"num_molecules_generated": 10, "total_molecules_to_generate": 1000},
    })


def small_molecule_screen() -> dict:
    """A small-molecule library screen of an uploaded file."""
    return validated(sdk.PipelineSmScreen, {
        **_base("pipe_sms"), "engine": "boltzmol", "engine_version": "1.0",
        "pipeline": "boltzmol", "pipeline_version": "1.0",
        "input": {"molecules": {"url": URL, "url_expires_at": EXPIRES}, "target": _sm_target()},
        "progress": {"num_molecules_screened": 980, "num_molecules_failed": 20,
                     "total_molecules_to_screen": 1000,
                     "rejection_summary": {"filtered_count": 7, "invalid_count": 2}},
    })


def small_molecule_explore() -> dict:
    """A small-molecule explore run, in its scoring phase."""
    return validated(sdk.PipelineSmExplore, {
        **_base("pipe_sme", "running"), "engine": "boltzmol", "engine_version": "1.0",
        "pipeline": "boltzmol", "pipeline_version": "1.0", "completed_at": None,
        "input": {"budget": 5000, "target": _sm_target(),
                  "library": {"format": "csv", "smiles_column": "smiles", "id_column": "id",
                              "source": {"type": "url", "url": URL}}},
        "progress": {"phase": "scoring", "num_molecules_scored": 1200,
                     "num_molecules_failed": 4, "total_molecules_to_score": 5000,
                     "library_size": 2000000},
    })


def structure_and_binding() -> dict:
    """A Boltz-2.1 prediction: protein A with ligand B as the binder, 3 samples."""
    return validated(sdk.PredictionBoltz2Prediction, {
        **_base("pred_sab"), "model": "boltz-2.1", "version": "2.1.0",
        "input": {
            "entities": [{"type": "protein", "chain_ids": ["A"], "value": KRAS},
                         {"type": "ligand_smiles", "chain_ids": ["B"], "value": "CCO<script>"}],
            "binding": {"type": "ligand_protein_binding", "binder_chain_id": "B"},
            "num_samples": 3,
        },
        "output": None,
    })


def adme() -> dict:
    """An ADME prediction of two molecules."""
    return validated(sdk.PredictionAdmePrediction, {
        **_base("pred_adme"), "model": "adme-v1", "version": "1",
        "input": {"molecules": [{"smiles": "CCO", "id": "ethanol"}, {"smiles": "c1ccccc1"}]},
        "output": None,
    })


PIPELINES = (protein_design, protein_library_screen, protein_redesign, sequence_redesign,
             small_molecule_design, small_molecule_screen, small_molecule_explore)
