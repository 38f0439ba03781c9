"""What the 3D page needs to know about a structure file: chains, confidence, interface.

Pure functions over mmCIF (or PDB) bytes, read with gemmi. Per-residue confidence comes
from ModelCIF's ``_ma_qa_metric_local`` (the pLDDT metric) when the file has it, else from
the atoms' B-factors (AlphaFold, Boltz and our demo write pLDDT there); a file whose values
all lie in 0-1 is on the 0-1 scale and is multiplied by 100. Interface residues are the
polymer residues in contact with another chain or a ligand, by the viewer's one contact
definition (``contacts``: a heavy atom within ``contacts.CONTACT_CUTOFF``, and the CB
rule where a chain has no side chains), the same the epitope scan reads: a target
residue on this page's interface of a two-chain complex is one of the design's epitope
residues. A structure whose contacts the rule does not compute (too many atoms, atoms
piled up, absurd coordinates: ``contacts.NotComputed``) has no interface, and
``interface_note`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gemmi
import numpy as np

from app.viewer.structure import contacts

# AlphaFold DB's bands: (lower bound, name, colour), highest first.
PLDDT_BANDS = (
    (90.0, "Very high (pLDDT > 90)", "#0053D6"),
    (70.0, "Confident (90 > pLDDT > 70)", "#65CBF3"),
    (50.0, "Low (70 > pLDDT > 50)", "#FFDB13"),
    (0.0, "Very low (pLDDT < 50)", "#FF7D45"),
)


@dataclass(frozen=True)
class Residue:
    """One polymer residue: its mmCIF label ids (what Mol* selects on) and pLDDT."""

    chain: str  # label_asym_id
    auth_chain: str
    seq: int  # label_seq_id
    name: str
    plddt: float | None  # 0-100


@dataclass
class Model:
    """A structure reduced to what the page shows."""

    residues: list[Residue]
    chains: list[str]  # polymer label_asym_ids in file order
    ligands: list[str]  # label_asym_ids of non-polymer, non-water chains
    ligand_atoms: int  # heavy atoms of the ligands (PAE tokens after the residues)
    confidence_source: str | None  # "ma_qa_metric_local", "b_factor" or None
    descriptions: dict[str, str] = field(default_factory=dict)  # label_asym_id -> entity
    auth: dict[str, str] = field(default_factory=dict)  # label_asym_id -> auth_asym_id
    interface: set[tuple[str, int]] = field(default_factory=set)  # (chain, seq)
    ca: dict[tuple[str, int], tuple[float, float, float]] = field(default_factory=dict)
    interface_note: str | None = None  # why there is no interface, when it was not computed


def structure_format(artifact: dict) -> str:
    """Return the format of a structure file: ``pdb`` or (by default) ``mmcif``."""
    name = str(artifact.get("filename") or "").lower()
    pdb = artifact.get("content_type") == "chemical/x-pdb" or name.endswith((".pdb", ".ent"))
    return "pdb" if pdb else "mmcif"


def band(plddt: float) -> int:
    """Return the index in ``PLDDT_BANDS`` of a 0-100 pLDDT value."""
    for index, (low, _label, _colour) in enumerate(PLDDT_BANDS):
        if plddt > low or index == len(PLDDT_BANDS) - 1:
            return index
    return len(PLDDT_BANDS) - 1


def read(data: bytes, fmt: str = "mmcif") -> Model:
    """Return the model of a structure file (first model only), its interface included
    unless the contact rule's bounds refuse it (``interface_note`` then says why)."""
    text = data.decode("utf-8", errors="replace")
    if fmt == "pdb":
        structure = gemmi.read_pdb_string(text)
        qa: dict = {}
        descriptions: dict = {}
    else:
        block = gemmi.cif.read_string(text)[0]
        structure = gemmi.make_structure_from_block(block)
        qa = _ma_qa_plddt(block)
        descriptions = _descriptions(block)
    structure.setup_entities()
    model = structure[0]
    residues, chains, ligands, ligand_atoms, b_values = [], [], [], 0, []
    ca, auth = {}, {}
    for chain in model:
        for residue in chain:
            label = residue.subchain or chain.name
            auth.setdefault(label, chain.name)
            entity = residue.entity_type
            if entity == gemmi.EntityType.Polymer:
                seq = residue.label_seq if residue.label_seq is not None else residue.seqid.num
                b = [a.b_iso for a in residue]
                b_values.append(float(np.mean(b)) if b else None)
                residues.append((label, chain.name, seq, residue.name))
                if label not in chains:
                    chains.append(label)
                atom = residue.find_atom("CA", "*")
                if atom is not None:
                    ca[(label, seq)] = (atom.pos.x, atom.pos.y, atom.pos.z)
            elif entity != gemmi.EntityType.Water:
                if label not in ligands:
                    ligands.append(label)
                ligand_atoms += sum(1 for a in residue if a.element.name not in ("H", "D"))
    source, values = _confidence(residues, qa, b_values)
    out = Model([Residue(c, ac, s, n, v) for (c, ac, s, n), v in zip(residues, values,
                                                                     strict=True)],
                chains, ligands, ligand_atoms, source, descriptions, auth, ca=ca)
    try:
        out.interface = interface_residues(model)
    except contacts.NotComputed as why:
        out.interface_note = str(why)
    return out


def _descriptions(block) -> dict[str, str]:
    """Return each label_asym_id's entity description (``_entity.pdbx_description``)."""
    names = {row.str(0): row.str(1) for row in block.find("_entity.", ["id",
                                                                       "pdbx_description"])}
    return {row.str(0): names[row.str(1)]
            for row in block.find("_struct_asym.", ["id", "entity_id"])
            if names.get(row.str(1)) not in (None, "", "?", ".")}


def _ma_qa_plddt(block) -> dict[tuple[str, int], float]:
    """Return ModelCIF's local pLDDT by (label_asym_id, label_seq_id), if the file has it."""
    metric_ids = set()
    metrics = block.find("_ma_qa_metric.", ["id", "name", "mode"])
    for row in metrics:
        if "plddt" in row.str(1).lower() and row.str(2).lower() == "local":
            metric_ids.add(row.str(0))
    if len(metrics) and not metric_ids:
        return {}  # local metrics that are not pLDDT (a QMEAN, say): not this colouring
    local = block.find("_ma_qa_metric_local.", ["label_asym_id", "label_seq_id", "metric_id",
                                                "metric_value"])
    out = {}
    for row in local:
        # Without a _ma_qa_metric table the local values are taken to be pLDDT.
        if row.str(2) in metric_ids or not metric_ids:
            try:
                out[(row.str(0), int(row.str(1)))] = float(row.str(3))
            except ValueError:
                continue
    return out


def _confidence(residues, qa: dict, b_values: list) -> tuple[str | None, list]:
    """Return the source of the per-residue pLDDT and the values on the 0-100 scale."""
    if qa:
        values = [qa.get((c, s)) for c, _ac, s, _n in residues]
        source = "ma_qa_metric_local"
    else:
        values = list(b_values)
        source = "b_factor"
    known = [v for v in values if v is not None]
    if not known or max(known) <= 0:
        return None, [None] * len(residues)
    if max(known) <= 1.0:  # the 0-1 scale
        values = [None if v is None else v * 100.0 for v in values]
    return source, [None if v is None else round(min(100.0, max(0.0, v)), 2) for v in values]


def interface_residues(model: gemmi.Model) -> set:
    """Return (label_asym_id, label_seq_id) of polymer residues in contact with another
    chain or a ligand (``contacts.interface_atoms``); raises ``contacts.NotComputed``."""
    xyz, chain, key, beta = [], [], [], []
    labels: dict[str, int] = {}
    polymer: dict[int, bool] = {}
    names: dict[int, set[str]] = {}
    for gchain in model:
        for residue in gchain:
            kind = residue.entity_type
            if kind == gemmi.EntityType.Water:
                continue
            label = residue.subchain or gchain.name
            index = labels.setdefault(label, len(labels))
            is_polymer = polymer[index] = kind == gemmi.EntityType.Polymer
            seq = (residue.label_seq if residue.label_seq is not None
                   else residue.seqid.num) if is_polymer else None
            cb = contacts.beta_atom(residue) if is_polymer else None
            for atom in residue:
                if atom.element.name in ("H", "D"):
                    continue
                xyz.append(atom.pos.tolist())
                chain.append(index)
                key.append((label, seq))
                beta.append(cb is not None and atom.name == cb.name)
                names.setdefault(index, set()).add(atom.name)
            if len(xyz) > contacts.MAX_ATOMS:  # a huge file stops here, not at its end
                raise contacts.TooLarge(sum(1 for site in model.all()
                                            if site.atom.element.name not in ("H", "D")))
    if not xyz:
        return set()
    chains = np.arange(len(labels))
    close = contacts.interface_atoms(
        np.array(xyz, dtype=np.float64), np.array(chain, dtype=np.int64),
        np.array([polymer.get(c, False) for c in chains]),
        np.array([contacts.has_side_chains(names.get(c, ())) for c in chains]),
        np.array(beta, dtype=bool))
    return {key[i] for i in np.flatnonzero(close)}


def ranges(keys: list[tuple[str, int]]) -> list[tuple[str, int, int]]:
    """Return (chain, first, last) runs of consecutive residues, in the order given."""
    out: list[tuple[str, int, int]] = []
    for chain, seq in keys:
        if out and out[-1][0] == chain and out[-1][2] == seq - 1:
            out[-1] = (chain, out[-1][1], seq)
        else:
            out.append((chain, seq, seq))
    return out
