"""mmCIF and SDF text for demo structures: protein chains, an optional ligand.

The mmCIF carries what Mol* and gemmi use to draw a model faithfully: ``_entity``,
``_entity_poly`` / ``_entity_poly_seq`` (so modified residues such as SEP stay part of the
polymer), ``_struct_asym``, ``_chem_comp``, ``_struct_conf`` (the helices as built, so the
cartoon does not depend on a secondary-structure guess), ``_chem_comp_bond`` for the
ligand (so double bonds are drawn), and the ``_atom_site`` loop with per-residue pLDDT in
``B_iso_or_equiv``. Ligand files are V2000 SDF in the same frame as the complex.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from app.synthetic import geometry as g
from app.synthetic.chemistry import MODIFIED_RESIDUES

THREE_LETTER = {
    "A": "ALA", "R": "ARG", "N": "ASN", "D": "ASP", "C": "CYS", "Q": "GLN", "E": "GLU",
    "G": "GLY", "H": "HIS", "I": "ILE", "L": "LEU", "K": "LYS", "M": "MET", "F": "PHE",
    "P": "PRO", "S": "SER", "T": "THR", "W": "TRP", "Y": "TYR", "V": "VAL",
}
_BOND_ORDER = {1: "SING", 2: "DOUB", 3: "TRIP"}


@dataclass(frozen=True)
class Chain:
    """A protein chain: residue names (CCD), backbone coordinates, pLDDT per residue."""

    chain_id: str
    description: str
    comp_ids: tuple[str, ...]
    residues: tuple[g.Residue, ...]
    plddt: tuple[float, ...]
    ss: str


@dataclass(frozen=True)
class Ligand:
    """A small molecule: element symbols, formal charges, coordinates, (i, j, order) bonds."""

    description: str
    elements: tuple[str, ...]
    charges: tuple[int, ...]
    xyz: tuple[g.Vec, ...]
    bonds: tuple[tuple[int, int, int], ...]
    # A CCD code for known components (their CCD atom names in ``names``); LIG otherwise.
    comp_id: str = "LIG"
    names: tuple[str, ...] | None = None
    plddt: float = 80.0  # written to B_iso_or_equiv of every ligand atom

    def atom_names(self) -> list[str]:
        """Return unique atom names: the CCD's, else C1, C2, N1 (numbered per element)."""
        if self.names:
            return list(self.names)
        counts: dict[str, int] = {}
        names = []
        for element in self.elements:
            counts[element] = counts.get(element, 0) + 1
            names.append(f"{element.upper()}{counts[element]}")
        return names


def comp_ids(sequence: str, modifications: list[dict] | None = None) -> tuple[str, ...]:
    """Return CCD residue names for a sequence, with CCD modifications applied."""
    names = [THREE_LETTER[aa] for aa in sequence]
    for mod in modifications or []:
        names[mod["residue_index"]] = mod["value"]
    return tuple(names)


def quote(value: str) -> str:
    """Return a CIF token for ``value`` (quoted when it has spaces or special characters)."""
    if value and not any(c.isspace() for c in value) and value[0] not in "_#$'\";[]" \
            and value not in (".", "?") and not value.lower().startswith(("data_", "loop_")):
        return value
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    return f"\n;{value}\n;\n"


def _one_letter_code(comps: tuple[str, ...]) -> str:
    codes = {v: k for k, v in THREE_LETTER.items()}
    return "".join(codes.get(c, f"({c})") for c in comps)


def mmcif(entry_id: str, chains: list[Chain], ligand: Ligand | None = None) -> str:
    """Return an mmCIF document of ``chains`` (entity per chain) and an optional ligand."""
    lines = [f"data_{entry_id}", "#", f"_entry.id {quote(entry_id)}", "#"]
    ligand_asym = string.ascii_uppercase[len(chains)] if ligand else None
    entities = [(str(i + 1), "polymer", ch.description) for i, ch in enumerate(chains)]
    if ligand:
        entities.append((str(len(chains) + 1), "non-polymer", ligand.description))
    lines += ["loop_", "_entity.id", "_entity.type", "_entity.pdbx_description"]
    lines += [f"{eid} {kind} {quote(desc)}" for eid, kind, desc in entities]
    lines += ["#", "loop_", "_entity_poly.entity_id", "_entity_poly.type",
              "_entity_poly.nstd_monomer", "_entity_poly.pdbx_seq_one_letter_code",
              "_entity_poly.pdbx_strand_id"]
    for i, ch in enumerate(chains):
        nstd = "yes" if any(c in MODIFIED_RESIDUES for c in ch.comp_ids) else "no"
        code = _one_letter_code(ch.comp_ids)
        # Text fields as the PDB writes them: ';' lines of their own, next value on a new line.
        lines.append(f"{i + 1} 'polypeptide(L)' {nstd}\n;{code}\n;\n{ch.chain_id}")
    lines += ["#", "loop_", "_entity_poly_seq.entity_id", "_entity_poly_seq.num",
              "_entity_poly_seq.mon_id", "_entity_poly_seq.hetero"]
    for i, ch in enumerate(chains):
        lines += [f"{i + 1} {n + 1} {c} n" for n, c in enumerate(ch.comp_ids)]
    lines += ["#", "loop_", "_struct_asym.id", "_struct_asym.entity_id"]
    lines += [f"{ch.chain_id} {i + 1}" for i, ch in enumerate(chains)]
    if ligand:
        lines.append(f"{ligand_asym} {len(chains) + 1}")
    lines += _chem_comp(chains, ligand)
    lines += _struct_conf(chains)
    if ligand:
        lines += _ligand_bonds(ligand)
    lines += _atom_site(chains, ligand, ligand_asym)
    return "\n".join(lines) + "\n"


def _chem_comp(chains: list[Chain], ligand: Ligand | None) -> list[str]:
    comps = sorted({c for ch in chains for c in ch.comp_ids})
    out = ["#", "loop_", "_chem_comp.id", "_chem_comp.type", "_chem_comp.mon_nstd_flag"]
    for comp in comps:
        standard = "y" if comp in THREE_LETTER.values() else "n"
        kind = "'L-peptide linking'" if comp != "GLY" else "'peptide linking'"
        out.append(f"{comp} {kind} {standard}")
    if ligand:
        out.append(f"{ligand.comp_id} non-polymer .")
    return out


def _struct_conf(chains: list[Chain]) -> list[str]:
    helices = []
    for ch in chains:
        start = None
        for i, s in enumerate(ch.ss + "L"):
            if s == "H" and start is None:
                start = i
            elif s != "H" and start is not None:
                helices.append((ch, start, i - 1))
                start = None
    if not helices:
        return []
    out = ["#", "loop_", "_struct_conf.conf_type_id", "_struct_conf.id",
           "_struct_conf.beg_label_comp_id", "_struct_conf.beg_label_asym_id",
           "_struct_conf.beg_label_seq_id", "_struct_conf.end_label_comp_id",
           "_struct_conf.end_label_asym_id", "_struct_conf.end_label_seq_id",
           "_struct_conf.beg_auth_comp_id", "_struct_conf.beg_auth_asym_id",
           "_struct_conf.beg_auth_seq_id", "_struct_conf.end_auth_comp_id",
           "_struct_conf.end_auth_asym_id", "_struct_conf.end_auth_seq_id",
           "_struct_conf.pdbx_PDB_helix_class", "_struct_conf.pdbx_PDB_helix_length"]
    for n, (ch, b, e) in enumerate(helices, start=1):
        ends = (f"{ch.comp_ids[b]} {ch.chain_id} {b + 1} "
                f"{ch.comp_ids[e]} {ch.chain_id} {e + 1}")
        out.append(f"HELX_P HELX_P{n} {ends} {ends} 1 {e - b + 1}")
    return out


def _ligand_bonds(ligand: Ligand) -> list[str]:
    names = ligand.atom_names()
    out = ["#", "loop_", "_chem_comp_bond.comp_id", "_chem_comp_bond.atom_id_1",
           "_chem_comp_bond.atom_id_2", "_chem_comp_bond.value_order"]
    out += [f"{ligand.comp_id} {names[i]} {names[j]} {_BOND_ORDER[o]}"
            for i, j, o in ligand.bonds]
    return out


# id(residues) -> (residues, per-residue formatted atoms). Binder backbones are cached and
# shared by many results, so their coordinates are formatted once, not once per file.
# Least recently used first, at most _FORMATTED_KEPT: each design's placed target is its
# own (``placements``) and must not pile up over a seed of a million results.
_FORMATTED: dict[int, tuple[tuple, list]] = {}
_FORMATTED_KEPT = 256


def _formatted_atoms(residues: tuple) -> list[list[tuple[str, str, str]]]:
    """Return, per residue, (atom name, element, "x y z") with CB included."""
    hit = _FORMATTED.pop(id(residues), None)
    if hit is not None and hit[0] is residues:
        _FORMATTED[id(residues)] = hit  # now the most recently used
        return hit[1]
    out = []
    for r in residues:
        out.append([
            (name, element, f"{x:.3f} {y:.3f} {z:.3f}")
            for name, element, (x, y, z) in (("N", "N", r.n), ("CA", "C", r.ca),
                                             ("C", "C", r.c), ("O", "O", r.o),
                                             ("CB", "C", r.cb))
        ])
    _FORMATTED[id(residues)] = (residues, out)
    while len(_FORMATTED) > _FORMATTED_KEPT:
        del _FORMATTED[next(iter(_FORMATTED))]
    return out


def _atom_site(chains: list[Chain], ligand: Ligand | None, ligand_asym: str | None) -> list:
    out = ["#", "loop_"] + [f"_atom_site.{c}" for c in (
        "group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id",
        "label_asym_id", "label_entity_id", "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x",
        "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "auth_seq_id", "auth_comp_id",
        "auth_asym_id", "auth_atom_id", "pdbx_PDB_model_num")]
    serial = 0
    standard = set(THREE_LETTER.values())
    for entity, ch in enumerate(chains, start=1):
        cid = ch.chain_id
        atoms_by_residue = _formatted_atoms(ch.residues)
        for n, (comp, atoms, b) in enumerate(zip(ch.comp_ids, atoms_by_residue, ch.plddt,
                                                 strict=True), start=1):
            group = "ATOM" if comp in standard else "HETATM"
            head = f" {comp} {cid} {entity} {n} ? "
            tail = f" 1.00 {b:.2f} {n} {comp} {cid} "
            for name, element, xyz in atoms if comp != "GLY" else atoms[:4]:
                serial += 1
                out.append(f"{group} {serial} {element} {name} .{head}{xyz}{tail}{name} 1")
    if ligand:
        entity = len(chains) + 1
        for name, element, (x, y, z) in zip(ligand.atom_names(), ligand.elements, ligand.xyz,
                                            strict=True):
            serial += 1
            comp = ligand.comp_id
            out.append(f"HETATM {serial} {element.upper()} {name} . {comp} {ligand_asym} "
                       f"{entity} . ? {x:.3f} {y:.3f} {z:.3f} 1.00 {ligand.plddt:.2f} 1 {comp} "
                       f"{ligand_asym} {name} 1")
    out.append("#")
    return out


def sdf(name: str, ligand: Ligand) -> str:
    """Return a V2000 SDF record of the ligand (heavy atoms, Kekule bond orders)."""
    lines = [name[:80], "  share-viewer-demo 3D", "",
             f"{len(ligand.elements):3d}{len(ligand.bonds):3d}  0  0  1  0  0  0  0  0999 V2000"]
    for element, (x, y, z) in zip(ligand.elements, ligand.xyz, strict=True):
        lines.append(f"{x:10.4f}{y:10.4f}{z:10.4f} {element:<3} 0  0  0  0  0  0  0  0  0  0  0  0")
    for i, j, order in ligand.bonds:
        lines.append(f"{i + 1:3d}{j + 1:3d}{order:3d}  0")
    charged = [(i + 1, c) for i, c in enumerate(ligand.charges) if c]
    for start in range(0, len(charged), 8):
        chunk = charged[start : start + 8]
        lines.append(f"M  CHG{len(chunk):3d}" + "".join(f" {i:3d} {c:3d}" for i, c in chunk))
    lines += ["M  END", "$$$$"]
    return "\n".join(lines) + "\n"
