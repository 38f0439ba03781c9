"""Structure files that a careless server would spend minutes on, and malformed ones.

``lattice_complex(atoms, chains, folds)`` writes an mmCIF of ``chains`` polymer chains
with ``atoms`` heavy atoms in all, at about a protein's heavy-atom density (one atom per
2.7 Å lattice point, 0.05 per Å³): the box cut into ``chains * folds`` slabs, slab k
belonging to chain k mod ``chains``, so with folds each chain's slabs interleave with the
others' (their bounding boxes overlap, as two intertwined chains' do) and every chain
touches its neighbours along planes, its interface a small part of its atoms.
``crowded(atoms)`` puts two chains' atoms on one point; ``huge(atoms)`` writes the
atom records of a two-chain lattice directly (a file of millions of atoms in seconds);
``malformed`` are files gemmi rejects or reads into nonsense.
"""

from __future__ import annotations

import gemmi
import numpy as np

SPACING = 2.7  # Angstroms between lattice atoms: about a protein's heavy-atom density
# Each residue is a lysine's heavy atoms, so every chain has side chains.
_NAMES = ("N", "CA", "C", "O", "CB", "CG", "CD", "CE", "NZ")
_ELEMENTS = ("N", "C", "C", "O", "C", "C", "C", "C", "N")


def _chain_name(index: int) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    name = ""
    index += 1
    while index:
        index, digit = divmod(index - 1, 26)
        name = letters[digit] + name
    return name


def _document(coordinates: list[np.ndarray]) -> bytes:
    """Return the mmCIF of one polymer chain per array of coordinates (lysines)."""
    structure = gemmi.Structure()
    model = gemmi.Model("1")
    per = len(_NAMES)
    for index, points in enumerate(coordinates):
        chain = gemmi.Chain(_chain_name(index))
        for start in range(0, len(points), per):
            residue = gemmi.Residue()
            residue.name = "LYS"
            residue.seqid = gemmi.SeqId(start // per + 1, " ")
            for offset, xyz in enumerate(points[start:start + per]):
                atom = gemmi.Atom()
                atom.name, atom.element = _NAMES[offset], gemmi.Element(_ELEMENTS[offset])
                atom.pos = gemmi.Position(*map(float, xyz))
                atom.b_iso, atom.occ = 80.0, 1.0
                residue.add_atom(atom)
            chain.add_residue(residue)
        model.add_chain(chain)
    structure.add_model(model)
    structure.setup_entities()
    return structure.make_mmcif_document().as_string().encode()


def lattice_complex(atoms: int, chains: int = 2, folds: int = 4) -> bytes:
    """Return an mmCIF of ``chains`` chains of ``atoms`` heavy atoms in all (module doc)."""
    side = int(np.ceil(atoms ** (1 / 3)))
    grid = np.indices((side, side, side)).reshape(3, -1).T[:atoms] * SPACING
    # Slabs along x, in the lattice's own order.
    order = np.lexsort((grid[:, 2], grid[:, 1], grid[:, 0]))
    slabs = np.array_split(grid[order], chains * folds)
    return _document([np.concatenate(slabs[k::chains]) for k in range(chains)])


def huge(atoms: int) -> bytes:
    """Return a bare mmCIF (atom records only) of two chains of lysines on the lattice."""
    side = int(np.ceil(atoms ** (1 / 3)))
    grid = np.indices((side, side, side)).reshape(3, -1).T[:atoms] * SPACING
    columns = ("group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id",
               "label_comp_id", "label_asym_id", "label_entity_id", "label_seq_id",
               "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy",
               "B_iso_or_equiv", "pdbx_formal_charge", "auth_seq_id", "auth_asym_id",
               "pdbx_PDB_model_num")
    lines = ["data_huge", "loop_", *(f"_atom_site.{c}" for c in columns)]
    per, half = len(_NAMES), atoms // 2
    for index, (x, y, z) in enumerate(grid.tolist()):
        chain = "A" if index < half else "B"
        seq = (index if index < half else index - half) // per + 1
        offset = (index if index < half else index - half) % per
        lines.append(f"ATOM {index + 1} {_ELEMENTS[offset]} {_NAMES[offset]} . LYS {chain} 1 "
                     f"{seq} ? {x:.1f} {y:.1f} {z:.1f} 1 80 ? {seq} {chain} 1")
    return ("\n".join(lines) + "\n").encode()


def crowded(atoms: int) -> bytes:
    """Return two chains whose ``atoms`` atoms all lie within 0.1 Å of one point."""
    rng = np.random.default_rng(7)
    points = rng.uniform(0, 0.1, size=(atoms, 3))
    return _document(np.array_split(points, 2))


def malformed() -> dict[str, bytes]:
    """Return files that are not structures, or are broken ones, by what is wrong."""
    good = lattice_complex(200, 2).decode()
    return {
        "truncated": good[: len(good) // 2].encode(),
        "not a structure": b"\x00\xff" * 5000,
        "empty": b"",
        "no atoms": b"data_x\n_entry.id x\n",
        "nan coordinates": good.replace("? 0 0 0 1 80", "? nan 0 0 1 80", 1).encode(),
        "astronomical coordinates": good.replace("? 0 0 0 1 80", "? 1e300 0 0 1 80",
                                                 1).encode(),
    }
