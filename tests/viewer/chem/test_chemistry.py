"""Computed chemistry and the substructure filter: the eight properties against RDKit's own
functions, ``smarts=`` over the whole set of a small-molecule pipeline (exactly the set
RDKit finds, highlighted, exported), its 400s, and the SDF's depiction coordinates."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sqlalchemy as sa
from rdkit import Chem
from rdkit.Chem import QED, Crippen, Descriptors, rdMolDescriptors
from rdkit.rdBase import BlockLogs

from app.platform.db import get_engine
from app.store import schema
from app.synthetic.chemistry import LIBRARY
from app.viewer.chem import depict, properties
from app.viewer.explore.index import frame as index_frame
from tests.support import factories

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
CHLOROPHENYL = "c1ccc(Cl)cc1"
UNPARSABLE = "C1CC(=O"


def test_properties_equal_rdkits_own_functions_at_their_stated_precision():
    for _name, smiles in LIBRARY:
        mol = Chem.MolFromSmiles(smiles)
        got = properties.compute(smiles)
        mw, logp = round(Descriptors.MolWt(mol), 2), round(Crippen.MolLogP(mol), 2)
        assert got["mol_weight"] == mw
        assert got["clogp"] == logp
        assert got["tpsa"] == round(rdMolDescriptors.CalcTPSA(mol), 2)
        assert got["hbd"] == rdMolDescriptors.CalcNumHBD(mol)
        assert got["hba"] == rdMolDescriptors.CalcNumHBA(mol)
        assert got["rotatable_bonds"] == rdMolDescriptors.CalcNumRotatableBonds(
            mol, rdMolDescriptors.NumRotatableBondsOptions.Strict)
        assert got["qed"] == round(QED.qed(mol), 3)
        # Counted with the weight and cLogP shown beside it.
        expected = sum((mw > 500, logp > 5, rdMolDescriptors.CalcNumHBD(mol) > 5,
                        rdMolDescriptors.CalcNumHBA(mol) > 10))
        assert got["lipinski_violations"] == expected
    # Sorafenib breaks the rule of five once (cLogP > 5); aspirin never.
    assert properties.compute(dict(LIBRARY)["sorafenib"])["lipinski_violations"] == 1
    assert properties.compute(dict(LIBRARY)["aspirin"])["lipinski_violations"] == 0
    assert properties.compute(UNPARSABLE) is None and properties.compute(None) is None


def test_a_frame_keeps_each_distinct_smiles_once_through_a_save():
    columns = {key: [None, None, None] for key in index_frame.STORED_NUMBERS}
    columns.update({key: ["a", "b", "c"] if key == "result_id" else [None] * 3
                    for key in index_frame.TEXT_COLUMNS})
    columns["smiles"] = ["CCO", None, "CCO"]
    frame = index_frame.build([columns])
    loaded = index_frame.from_bytes(index_frame.to_bytes(frame))
    assert loaded.molecules.smiles == ["CCO"]
    assert loaded.molecules.codes.tolist() == [0, -1, 0]
    assert loaded.molecules.rows_matching(np.array([True])).tolist() == [True, False, True]


@pytest.fixture
def molecules(app, org):
    """A small-molecule pipeline whose results cycle through the demo library (and one
    SMILES RDKit cannot read), behind a public link."""
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, "small_molecule_library_screen", 130, seed=4,
            artifact_dir=app.config["ARTIFACT_DIR"])
        pool = [smiles for _name, smiles in LIBRARY] + [UNPARSABLE]
        for index, result_id in enumerate(ids):
            conn.execute(sa.update(schema.results).where(schema.results.c.id == result_id)
                         .values(smiles=pool[index % len(pool)]))
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return f"/share/{link.id}/pipelines/{pipeline_id}", dict(zip(ids, (
        pool[i % len(pool)] for i in range(len(ids))), strict=True))


def _view_ids(client, path: str, query: str) -> list[str]:
    body = client.get(f"{path}?{query}&limit=250").get_data(as_text=True)
    assert 'rel="next"' not in body
    return ROW_ID.findall(body)


def _has(smiles: str, pattern: str) -> bool:
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    return mol is not None and mol.HasSubstructMatch(Chem.MolFromSmarts(pattern))


@pytest.mark.slow
def test_substructure_filter_is_exactly_the_set_rdkit_finds(client, molecules):
    path, smiles_of = molecules
    expected = [rid for rid, smiles in smiles_of.items() if _has(smiles, CHLOROPHENYL)]
    assert 0 < len(expected) < len(smiles_of)
    # In id order (the default view is ranked by the kind's primary metric).
    assert _view_ids(client, path, f"smarts={CHLOROPHENYL}&sort=id") == expected
    # A Kekulé SMILES is read as a molecule: its ring is the aromatic one.
    benzene = [rid for rid, s in smiles_of.items() if _has(s, "c1ccccc1")]
    assert _view_ids(client, path, "smarts=C1%3DCC%3DCC%3DC1&sort=id") == benzene
    # With a number filter and a sort on a computed property.
    small = sorted((rid for rid in expected if properties.compute(smiles_of[rid])
                    ["mol_weight"] <= 400),
                   key=lambda rid: (-properties.compute(smiles_of[rid])["qed"], rid))
    assert _view_ids(client, path, f"smarts={CHLOROPHENYL}&mol_weight__lte=400&sort=-qed") \
        == small


def test_the_view_highlights_the_match_and_its_exports_hold_it(client, molecules):
    path, smiles_of = molecules
    expected = [rid for rid, smiles in smiles_of.items() if _has(smiles, CHLOROPHENYL)]
    body = client.get(f"{path}?smarts={CHLOROPHENYL}").get_data(as_text=True)
    images = re.findall(r'<img src="([^"]+)"', body)
    assert len(images) == len(expected)
    assert all("highlight=c1ccc(Cl)cc1" in src for src in images)
    drawing = client.get(images[0].replace("&amp;", "&"))
    assert drawing.status_code == 200 and depict.HIGHLIGHT_HEX in drawing.get_data(True)
    sdf = client.get(f"{path}/export.sdf?smarts={CHLOROPHENYL}&sort=id").get_data(as_text=True)
    titles = [block.lstrip("\n").split("\n", 1)[0] for block in sdf.split("$$$$")[:-1]]
    assert [title.split("|")[2] for title in titles] == expected
    assert ">  <qed>" in sdf and ">  <lipinski_violations>" in sdf


@pytest.mark.parametrize(("query", "why"), [
    ("smarts=%5B%236", "not a SMARTS"), (f"smarts={'C' * 501}", "longer than 500")])
@pytest.mark.slow
def test_a_bad_substructure_is_a_400_naming_smarts(client, molecules, query, why):
    path, _smiles_of = molecules
    for url in (f"{path}?{query}", f"{path}/export.csv?{query}"):
        response = client.get(url)
        assert response.status_code == 400
        text = response.get_data(as_text=True)
        assert "smarts" in text and why in text
    assert client.get(f"{path}/explore.json?{query}").status_code == 400


def test_a_substructure_on_protein_results_is_a_400(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(conn, org.workspace_id,
                                                      "protein_design", 3,
                                                      artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    path = f"/share/{link.id}/pipelines/{pipeline_id}"
    for url in (f"{path}?smarts=CCO", f"{path}/export.csv?smarts=CCO",
                f"{path}/explore.json?smarts=CCO"):
        response = client.get(url)
        assert response.status_code == 400, url
        assert "smarts" in response.get_data(as_text=True)


@pytest.mark.slow
def test_every_molecule_of_a_page_is_drawn_or_said_undrawable(client, molecules):
    path, smiles_of = molecules
    body = client.get(f"{path}?limit=50&sort=id").get_data(as_text=True)
    images = re.findall(r'<img src="([^"]+)"[^>]*alt="2D structure"', body)
    undrawn = body.count("Structure could not be drawn")
    shown = list(smiles_of.values())[:50]
    assert undrawn == shown.count(UNPARSABLE) == 1
    assert len(images) == 49
    for src in images:  # every SMILES (charges, triple bonds, stereo) survives its URL
        response = client.get(src.replace("&amp;", "&"))
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"


def test_sdf_2d_records_carry_the_depiction_coordinates(client, molecules):
    path, smiles_of = molecules
    sdf = client.get(f"{path}/export.sdf").get_data(as_text=True)
    supplier = Chem.SDMolSupplier()
    supplier.SetData(sdf)
    checked = 0
    for mol in supplier:
        if mol is None or mol.GetProp("coordinates") != "2D":
            continue
        drawn = depict.depiction_mol(smiles_of[mol.GetProp("_Name").split("|")[2]])
        assert np.allclose(mol.GetConformer().GetPositions(),
                           drawn.GetConformer().GetPositions(), atol=1e-3)
        # Rounded to the stated precision (exports.precision: 0.01 g/mol).
        assert mol.GetProp("mol_weight") == repr(round(Descriptors.MolWt(drawn), 2))
        checked += 1
    assert checked > 100
