"""Run inputs in the official SDK's shapes (``boltz-api`` 0.50.0, ``boltz_api/types``).

The demo builders, test mode's synthetic data and the test factories store these as a
pipeline's ``input`` (and a prediction's ``inputs``): each validates strictly against the
SDK's input model of its kind (``tests/synthetic/test_catalog_wire.py``). Entities name
their chain ids exactly as the structure files of the results do (binder A, target B and
a glycan C for proteins; target A for small molecules).

Input files the SDK declares as presigned ``{url, url_expires_at}`` objects (a redesign's
template structure, a library's protein or molecule file) are not stored by this project:
their ``url`` names the file under ``INPUT_FILES`` (a reserved, unresolvable host), so a
reader sees what was uploaded without a link that pretends to work.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# Where the names of uploaded input files point: ``.invalid`` never resolves (RFC 2606).
INPUT_FILES = "https://inputs.demo.invalid"
# How long an input file's URL is said to stay valid after the run was created.
INPUT_URL_TTL = timedelta(days=30)


def timestamp(value: datetime) -> str:
    """Return a naive-UTC or aware datetime as the API's ISO 8601 text (``...Z``)."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(timespec="milliseconds") + "Z"


def input_file(pipeline_id: str, filename: str, created: datetime) -> dict:
    """Return the SDK's file object of an uploaded input file (see the module docstring)."""
    return {"url": f"{INPUT_FILES}/{pipeline_id}/{filename}",
            "url_expires_at": timestamp(created + INPUT_URL_TTL)}


def protein(chain_id: str, sequence: str, *, cyclic: bool = False,
            modifications: list[dict] | None = None) -> dict:
    """Return a fixed protein entity (also the shape of result and prediction entities)."""
    return {"type": "protein", "chain_ids": [chain_id], "value": sequence, "cyclic": cyclic,
            "modifications": list(modifications or [])}


def ligand_ccd(chain_id: str, code: str) -> dict:
    """Return a ligand entity given by its CCD code."""
    return {"type": "ligand_ccd", "chain_ids": [chain_id], "value": code}


def ligand_smiles(chain_id: str, smiles: str) -> dict:
    """Return a ligand entity given by its SMILES."""
    return {"type": "ligand_smiles", "chain_ids": [chain_id], "value": smiles}


def glycosylation_bond(protein_chain: str, residue_index: int, glycan_chain: str,
                       code: str = "NAG") -> dict:
    """Return the covalent bond of an N-glycan's C1 to an asparagine's ND2."""
    return {"atom1": {"type": "polymer_atom", "chain_id": protein_chain,
                      "residue_index": residue_index, "atom_name": "ND2"},
            "atom2": {"type": "ccd_atom", "chain_id": glycan_chain, "residue_id": code,
                      "atom_id": "C1"}}


def protein_design(target: list[dict], *, binder_chain: str, min_length: int,
                   max_length: int, modality: str, num_proteins: int,
                   filters: list[dict] | None = None) -> dict:
    """Return a binder protein design input (``BinderProteinDesignRunInput``).

    ``target`` is a list of entities (``protein`` and the like), each used whole and
    without a template; the binder is one designed chain of ``min_length``..``max_length``
    residues.
    """
    value = str(min_length) if min_length == max_length else f"{min_length}..{max_length}"
    body = {
        "type": "binder",
        "target": {"entities": [{"type": "no_template", "entity": e} for e in target]},
        "binder": {"modality": modality, "entities": [{"type": "no_template", "entity": {
            "type": "designed_protein", "chain_ids": [binder_chain], "value": value}}]},
        "templates": [],
        "num_proteins": num_proteins,
    }
    if filters:
        body["global_design_filters"] = filters
    return body


def protein_redesign(structure: dict, *, binder_chain: str, designed_residues: list[int],
                     target_chains: dict[str, str], num_proteins: int) -> dict:
    """Return a protein redesign input: which residues of the binder chain to redesign.

    ``target_chains`` maps the fixed chains of the template to their molecule type.
    """
    return {
        "structure": structure,
        "chains_config": {
            "binder_chains": {binder_chain: {"chain_type": "protein",
                                             "designed_residues": list(designed_residues)}},
            "target_chains": {chain: {"chain_type": kind}
                              for chain, kind in target_chains.items()},
        },
        "num_proteins": num_proteins,
    }


def sequence_redesign(structure: dict, *, binder_chain: str, target_chain: str,
                      num_proteins: int, filters: list[dict] | None = None) -> dict:
    """Return a binder sequence redesign input over a template's binder and target chains."""
    body = {
        "type": "binder",
        "structure": structure,
        "entities": [
            {"type": "from_template", "chain_id": binder_chain, "role": "binder"},
            {"type": "from_template", "chain_id": target_chain, "role": "target"},
        ],
        "num_proteins": num_proteins,
    }
    if filters:
        body["global_design_filters"] = filters
    return body


def protein_library_screen(target: list[dict], proteins: dict, *,
                           bonds: list[dict] | None = None) -> dict:
    """Return a protein library screen input: a target without template, a protein file."""
    body: dict = {"type": "no_template", "entities": list(target)}
    if bonds:
        body["bonds"] = bonds
    return {"target": body, "proteins": proteins}


def molecule_target(entities: list[dict], *, reference_ligands: list[str] | None = None,
                    pocket_residues: dict[str, list[int]] | None = None) -> dict:
    """Return a small-molecule run's target (protein entities, optional pocket hints)."""
    body: dict = {"type": "no_template", "entities": list(entities)}
    if reference_ligands:
        body["reference_ligands"] = list(reference_ligands)
    if pocket_residues:
        body["pocket_residues"] = pocket_residues
    return body


def small_molecule_design(target: dict, num_molecules: int) -> dict:
    """Return a small-molecule design input."""
    return {"target": target, "num_molecules": num_molecules}


def small_molecule_library_screen(target: dict, molecules: dict) -> dict:
    """Return a small-molecule library screen input (``molecules``: the library's file)."""
    return {"target": target, "molecules": molecules}


def small_molecule_explore(target: dict, *, library_url: str, budget: int,
                           smiles_column: str = "smiles",
                           id_column: str | None = "compound_id") -> dict:
    """Return a small-molecule explore input over a CSV library given by its URL."""
    library: dict = {"source": {"type": "url", "url": library_url}, "format": "csv",
                     "smiles_column": smiles_column}
    if id_column is not None:
        library["id_column"] = id_column
    return {"target": target, "library": library, "budget": budget}


def failed_count(done: int) -> int:
    """Return how many members of a screen of ``done`` results failed (about 1 in 12)."""
    return done // 12
