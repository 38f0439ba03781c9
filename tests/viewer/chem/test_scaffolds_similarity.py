"""Scaffolds (``scaffold=``, ``group=scaffold``) and similarity (``similar_to=``) of
small-molecule results (issue 20 items 2 and 3), checked against RDKit's own answers over
the molecules of both small-molecule demo pipelines (the library and the design series)."""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from urllib.parse import quote, unquote

import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.rdBase import BlockLogs

from app.platform.db import get_engine
from app.viewer.chem import scaffolds
from tests.support import factories
from tests.support.molecule_pools import ACYCLIC, POOLS, pool_pipeline

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
SIM_CELL = re.compile(r'<td class="num col-similarity">([^<]*)</td>')
GROUP_CELL = re.compile(r'<td class="num col-group"><a href="[^"]*scaffold=([^"&]*)[^"]*"'
                        r'[^>]*>([0-9,]+)</a>')
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


@pytest.fixture(params=sorted(POOLS))
def molecules(request, app, org):
    """A pipeline whose results cycle through one demo pool (some twice), public link."""
    return pool_pipeline(app, org, request.param)


def _mol(smiles: str):
    with BlockLogs():
        return Chem.MolFromSmiles(smiles)


def _rdkit_scaffold(smiles: str) -> str | None:
    mol = _mol(smiles)
    if mol is None:
        return None
    return Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol)) or "acyclic"


def _fp(smiles: str):
    mol = _mol(smiles)
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return None if mol is None else generator.GetFingerprint(mol)


def _page(client, path: str, query: str, status: int = 200) -> str:
    response = client.get(f"{path}?{query}&limit=250")
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


@pytest.mark.slow
def test_scaffolds_equal_rdkits_own(client, molecules):
    path, smiles_of = molecules
    expected = Counter(s for s in map(_rdkit_scaffold, smiles_of.values()) if s)
    # One scaffold per molecule, as RDKit writes it (the chemistry module itself).
    for smiles in set(smiles_of.values()):
        assert scaffolds.display(scaffolds.scaffold_now(smiles) or "") == \
            (_rdkit_scaffold(smiles) or "acyclic") or _mol(smiles) is None
    # group=scaffold: one row per scaffold, with how many results share it.
    body = _page(client, path, "group=scaffold&sort=id")
    found = {unquote(html.unescape(scaffold)): int(n.replace(",", ""))
             for scaffold, n in GROUP_CELL.findall(body)}
    assert found == dict(expected)
    # The first row of each scaffold in the view's order (here: id order).
    rows = ROW_ID.findall(body)
    firsts, seen = [], set()
    for rid in sorted(smiles_of):
        scaffold = _rdkit_scaffold(smiles_of[rid])
        if scaffold and scaffold not in seen:
            seen.add(scaffold)
            firsts.append(rid)
    assert rows == firsts
    # scaffold=<s>: exactly the results with that scaffold (the most common one).
    top, count = expected.most_common(1)[0]
    chosen = _page(client, path, f"scaffold={quote(top, safe='')}&sort=id")
    assert ROW_ID.findall(chosen) == sorted(rid for rid, s in smiles_of.items()
                                            if _rdkit_scaffold(s) == top)
    assert len(ROW_ID.findall(chosen)) == count
    # The facet lists it with its count, as a link.
    assert f'data-value="{html.escape(top)}">{count}<' in body


def test_acyclic_molecules_have_the_acyclic_scaffold(client, molecules):
    path, smiles_of = molecules
    acyclic = sorted(rid for rid, s in smiles_of.items() if s == ACYCLIC)
    assert ROW_ID.findall(_page(client, path, "scaffold=acyclic&sort=id")) == acyclic


@pytest.mark.slow
def test_similarity_equals_rdkits_tanimoto_with_threshold_and_order(client, molecules):
    path, smiles_of = molecules
    query_fp = _fp(ASPIRIN)
    expected = {rid: DataStructs.TanimotoSimilarity(query_fp, _fp(s))
                for rid, s in smiles_of.items() if _fp(s) is not None}
    body = _page(client, path, f"similar_to={quote(ASPIRIN)}&sort=-similarity"
                 "&similarity__gte=0.1")
    order = sorted((rid for rid, v in expected.items() if v >= 0.1),
                   key=lambda rid: (-expected[rid], rid))
    assert ROW_ID.findall(body) == order
    assert [float(v) for v in SIM_CELL.findall(body)] == \
        [round(expected[rid], 3) for rid in order]
    assert 'class="similar-query' in body and "<img" in body  # the query molecule drawn
    # The CSV export keeps the order and gives the full values in a similarity column.
    export = client.get(f"{path}/export.csv?similar_to={quote(ASPIRIN)}&sort=-similarity"
                        "&similarity__gte=0.1")
    rows = list(csv.DictReader(io.StringIO(export.get_data(as_text=True))))
    assert [r["result_id"] for r in rows] == order
    assert [float(r["similarity"]) for r in rows] == pytest.approx(
        [expected[rid] for rid in order], abs=1e-12)


@pytest.mark.slow
def test_similar_to_a_result_id_and_the_find_similar_link(client, molecules):
    path, smiles_of = molecules
    start = sorted(smiles_of)[0]
    body = _page(client, path, "sort=id")
    assert f"similar_to={start}&amp;sort=-similarity" in body  # "Find similar" on rows
    found = _page(client, path, f"similar_to={start}&sort=-similarity")
    rows = ROW_ID.findall(found)
    assert rows[0] in {rid for rid, s in smiles_of.items() if s == smiles_of[start]}
    values = [float(v) for v in SIM_CELL.findall(found)]
    assert values[0] == 1.0 and values == sorted(values, reverse=True)


@pytest.mark.parametrize("query", ["similar_to=C1CC(%3DO", "similarity__gte=0.5",
                                   "sort=-similarity", "group=family",
                                   f"similar_to={'C' * 2001}"])
@pytest.mark.slow
def test_bad_similarity_or_group_is_a_400(client, molecules, query):
    path, _smiles_of = molecules
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert "similar" in text or "group" in text


def test_protein_results_refuse_scaffold_and_similarity(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(conn, org.workspace_id,
                                                      "protein_design", 3,
                                                      artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    for query in ("scaffold=c1ccccc1", "similar_to=CCO", "group=scaffold"):
        assert client.get(f"/share/{link.id}/pipelines/{pipeline_id}?{query}").status_code \
            == 400


def test_a_large_sets_scaffolds_wait_to_be_asked_for(client, molecules, monkeypatch):
    """A frame saved before the index build computed the chemistry (``chem_index``)."""
    from app.viewer.explore import chem_answers
    from app.viewer.explore.index import chem_index

    path, smiles_of = molecules
    monkeypatch.setattr(chem_index.MoleculeWork, "add_page", lambda self, smiles: None)
    monkeypatch.setattr(chem_index.MoleculeWork, "complete", lambda self, data, old: None)
    monkeypatch.setattr(chem_answers, "EAGER_SCAFFOLDS", 0)  # every set counts as large
    chem_answers.clear_caches()
    body = _page(client, path, "sort=id")
    assert "computed on request" in body and 'data-facet="scaffold"' not in body
    assert scaffolds.uncached(list(set(smiles_of.values())))  # nothing computed yet
    _page(client, path, "group=scaffold&sort=id")  # asked for: computed and kept
    assert 'data-facet="scaffold"' in _page(client, path, "sort=id")


@pytest.mark.slow
def test_with_the_builds_chemistry_every_sets_scaffolds_show_at_once(client, molecules,
                                                                   monkeypatch):
    from app.viewer.explore import chem_answers

    path, smiles_of = molecules
    monkeypatch.setattr(chem_answers, "EAGER_SCAFFOLDS", 0)  # every set counts as large
    chem_answers.clear_caches()
    body = _page(client, path, "sort=id")
    assert 'data-facet="scaffold"' in body and "computed on request" not in body
    assert scaffolds.uncached(list(set(smiles_of.values())))  # from the frame, not RDKit
