"""The 3D page's reading of a structure file stays bounded whatever the file holds.

Large complexes (tens of thousands of atoms, thousands of chains) get their interface in
seconds, by the one contact rule; files past the rule's bounds (too many atoms, atoms
piled on one another, absurd coordinates) get their model without an interface and a
note saying why; malformed files are refused with the errors the page expects.
"""

from __future__ import annotations

import time

import gemmi
import numpy as np
import pytest

from app.viewer.structure import contacts, reading
from app.viewer.structure import model as structure_model
from tests.support import hostile_structures


def _reference_interface(data: bytes) -> set:
    """The interface by the rule's words, with a full distance matrix (small files only)."""
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(data.decode())[0])
    st.setup_entities()
    atoms = [(res.subchain, res.seqid.num, atom.name, atom.pos.tolist())
             for ch in st[0] for res in ch for atom in res]
    xyz = np.array([a[3] for a in atoms])
    chain = np.array([a[0] for a in atoms])
    d = np.sqrt(((xyz[:, None] - xyz[None]) ** 2).sum(-1))
    other = chain[:, None] != chain[None, :]
    # Every chain here has side chains: the heavy-atom cutoff alone decides.
    close = ((d <= contacts.CONTACT_CUTOFF) & other).any(1)
    return {(atoms[i][0], atoms[i][1]) for i in np.flatnonzero(close)}


@pytest.mark.parametrize(("atoms", "chains", "folds"), [(3000, 2, 4), (3000, 300, 1),
                                                         (4000, 7, 3)])
@pytest.mark.slow
def test_the_interface_of_intertwined_and_many_chains_follows_the_rule(atoms, chains, folds):
    data = hostile_structures.lattice_complex(atoms, chains, folds)
    model = structure_model.read(data)
    assert model.interface_note is None
    assert model.interface and model.interface == _reference_interface(data)


@pytest.mark.parametrize(("atoms", "chains", "folds"), [(40_000, 2, 4), (40_000, 4_000, 1)])
@pytest.mark.slow
def test_a_large_complex_or_thousands_of_chains_is_read_in_seconds(atoms, chains, folds):
    data = hostile_structures.lattice_complex(atoms, chains, folds)
    started = time.perf_counter()
    model = structure_model.read(data)
    elapsed = time.perf_counter() - started
    assert model.interface and model.interface_note is None
    assert len(model.chains) == chains
    # About 1 s (two chains) and 2.5 s (4,000 chains) on a quiet core; all atom pairs
    # took 43 s and several minutes.
    assert elapsed < 20, elapsed


def test_a_structure_over_the_atom_cap_keeps_its_legend_and_says_why_no_interface(
        monkeypatch):
    monkeypatch.setattr(contacts, "MAX_ATOMS", 1_000)
    model = structure_model.read(hostile_structures.lattice_complex(2_000, 2))
    assert model.interface == set()
    assert model.interface_note == ("it has 2,000 heavy atoms, more than the 1,000 whose "
                                    "contacts the viewer computes")
    # The confidence legend is read all the same (every atom written with pLDDT 80).
    assert len(model.chains) == 2 and {r.plddt for r in model.residues} == {80.0}


def test_atoms_piled_on_one_point_are_refused_not_compared():
    started = time.perf_counter()
    model = structure_model.read(hostile_structures.crowded(20_000))
    assert model.interface == set()
    assert "piled on one another" in model.interface_note
    assert time.perf_counter() - started < 10  # 20,000 x 20,000 pairs were never compared


@pytest.mark.parametrize("name", sorted(hostile_structures.malformed()))
def test_a_malformed_file_is_refused_or_read_without_an_interface(name):
    data = hostile_structures.malformed()[name]
    try:
        model = structure_model.read(data)
    except reading.UNREADABLE:
        return  # the page shows the file in Mol*'s own colours
    assert model.interface == set()
    assert "coordinates are not numbers or lie beyond" in model.interface_note
