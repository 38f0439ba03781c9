"""The demo's ``pae.npz``: Boltz's format, one token per residue then per ligand atom.

Checked on archives the seeder really builds (a small catalog), read back from the store.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from datetime import datetime

import gemmi
import numpy as np
import pytest

from app.artifact_storage import path_for
from app.synthetic.catalog import PIPELINE_PLAN, build_catalog
from app.synthetic.pae import pae_matrix, pae_npz


@pytest.fixture(scope="module")
def archives():
    """Return {result: (archive members, structure)} of a catalog with 3 results a kind."""
    with tempfile.TemporaryDirectory() as root:
        data = build_catalog("ws_x", root, datetime(2026, 1, 1), count=3)
        files = {}
        for result in data.results:
            arts = {a.role: a for a in data.artifacts if a.result_id == result.id}
            blob = path_for(root, arts["archive"].storage_path).read_bytes()
            with zipfile.ZipFile(io.BytesIO(blob)) as archive:
                members = {name: archive.read(name) for name in archive.namelist()}
            files[result.id] = (result, members)
        yield files


def _tokens(cif: bytes) -> tuple[list[str], int]:
    """Return (chain of each polymer residue, ligand heavy atoms) read with gemmi."""
    structure = gemmi.make_structure_from_block(gemmi.cif.read_string(cif.decode())[0])
    chains, ligand = [], 0
    for chain in structure[0]:
        for residue in chain:
            if residue.find_atom("CA", "*"):
                chains.append(chain.name)
            else:
                ligand += sum(1 for atom in residue if atom.element.name != "H")
    return chains, ligand


def test_every_archive_holds_a_pae_npz_over_residues_then_ligand_atoms(archives):
    assert len(archives) == 3 * len(PIPELINE_PLAN)
    for rid, (_result, members) in archives.items():
        with np.load(io.BytesIO(members["pae.npz"])) as npz:
            assert npz.files == ["pae"]
            pae = npz["pae"]
        chains, ligand_atoms = _tokens(members[f"{rid}.cif"])
        assert pae.dtype == np.float32
        assert pae.shape == (len(chains) + ligand_atoms,) * 2
        assert np.isfinite(pae).all() and pae.min() >= 0 and pae.max() <= 32


def test_pae_is_low_within_a_chain_higher_across_and_follows_plddt(archives):
    complexes = [(r, m) for rid, (r, m) in archives.items()
                 if r.entities and len(r.entities) >= 2 and r.entities[1]["type"] == "protein"]
    assert complexes
    for result, members in complexes:
        cif = members[f"{result.id}.cif"]
        pae = pae_matrix(cif.decode())
        chains, _ligand = _tokens(cif)
        a = np.array([c == "A" for c in chains] + [False] * (len(pae) - len(chains)))
        b = np.array([c == "B" for c in chains] + [False] * (len(pae) - len(chains)))
        within = (pae[np.ix_(a, a)].mean() + pae[np.ix_(b, b)].mean()) / 2
        assert pae[np.ix_(a, b)].mean() > within + 1.0
        # Columns of low-confidence residues carry larger errors than confident ones.
        st = gemmi.make_structure_from_block(gemmi.cif.read_string(cif.decode())[0])
        plddt = np.array([res["CA"][0].b_iso for ch in st[0] for res in ch
                          if res.find_atom("CA", "*")])
        low, high = plddt < np.percentile(plddt, 25), plddt > np.percentile(plddt, 75)
        n = len(plddt)
        assert pae[:n, :n][:, low].mean() > pae[:n, :n][:, high].mean()


def test_pae_is_deterministic(archives):
    # Seeded by the structure's content: a reseed writes the same bytes (stored once).
    for rid, (_result, members) in list(archives.items())[:3]:
        assert pae_npz(members[f"{rid}.cif"].decode()) == members["pae.npz"]
