"""Diverse picks in Chromium through gunicorn over the seeded demo (issue 20 item 8): "Top
10 families" beside the order turns the library screen's ranked view into the best molecule
of each of its first 10 Butina clusters (recomputed here with RDKit's ``ClusterData`` over
the view's molecules in the order the plain view shows), each with its family's size; the
picks can be ticked into the shortlist, whose view keeps them. The protein design view is
shot too (families by sequence identity). Screenshots go to ``shots_dir``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from Bio import Align
from Bio.Align import substitution_matrices
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.ML.Cluster import Butina

from tests.browser.conftest import api_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"


def _fp(smiles: str):
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    mol = Chem.MolFromSmiles(smiles)
    return None if mol is None else generator.GetFingerprint(mol)


def _expected(order: list[str], smiles: dict[str, str], wanted: int):
    distinct = list(dict.fromkeys(smiles[r] for r in order if _fp(smiles[r])))
    fps = [_fp(s) for s in distinct]
    distances = []
    for i in range(1, len(fps)):
        distances.extend(1.0 - s for s in DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i]))
    found = sorted(Butina.ClusterData(distances, len(fps), 0.6, isDistData=True), key=min)
    out = []
    for members in found[:wanted]:
        family = {distinct[i] for i in members}
        rows = [r for r in order if smiles[r] in family]
        out.append([rows[0], str(len(rows))])
    return out


def _rows(page) -> list:
    return page.eval_on_selector_all(
        "table.results tbody tr", "rows => rows.map(r => [r.dataset.resultId, "
        "(r.querySelector('td.col-family') || {innerText: ''}).innerText.trim()])")


def _table_on_top(page) -> None:
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.results figure.mol img')].slice(0, 4)"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)


def test_top_families_toggle_and_shortlist(site, visitor, shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    path = f"{server.url}/share/{link}/pipelines/{seed['pipelines'][KIND]}"
    smiles = {r["id"]: r["smiles"] for r in api_records(server, seed, KIND)}
    page = visitor.page
    visitor.goto(f"{path}?limit=250")
    order = [rid for rid, _n in _rows(page)]
    assert sorted(order) == sorted(smiles)  # the whole ranked view on one page
    toggle = page.locator(".order-choice a.diverse-toggle")
    assert toggle.inner_text() == "Top 10 families"
    with page.expect_navigation():
        toggle.click()
    assert parse_qs(urlparse(page.url).query)["diverse"] == ["10"]
    assert page.locator(".order-choice strong.diverse-on").inner_text() == "Top 10 families"
    shown = _rows(page)
    assert shown == _expected(order, smiles, 10)
    assert "one row per family" in page.locator("#results-caption").inner_text()
    page.locator(".view-order").scroll_into_view_if_needed()
    page.evaluate("() => window.scrollBy(0, document.querySelector('.view-order')"
                  ".getBoundingClientRect().top - 8)")
    page.screenshot(path=str(shots_dir / "issue20-diverse-top-families.png"), full_page=False)
    _table_on_top(page)
    page.screenshot(path=str(shots_dir / "issue20-diverse-table.png"), full_page=False)
    # Tick the first three picks: the shortlist's view is exactly them.
    for rid, _n in shown[:3]:
        page.locator(f"tr[data-result-id='{rid}'] input.shortlist-tick").check()
    view = page.locator("[data-shortlist-view]").get_attribute("href")
    assert set(parse_qs(urlparse(view).query)["ids"][0].split(",")) == \
        {rid for rid, _n in shown[:3]}
    # And back: "Every result" turns it off.
    with page.expect_navigation():
        page.locator(".order-choice a.diverse-toggle", has_text="Every result").click()
    assert "diverse" not in parse_qs(urlparse(page.url).query)


def _identity(first: str, second: str) -> float:
    """Identity with Biopython, recomputed here: needle's defaults, over the shorter."""
    aligner = Align.PairwiseAligner(
        mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
        open_gap_score=-10.0, extend_gap_score=-0.5)
    best = aligner.align(first, second)[0]
    return best.counts().identities / min(len(first), len(second))


def test_protein_families_views(site, visitor, shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    page = visitor.page
    for kind in ("protein_design", "protein_redesign"):
        records = api_records(server, seed, kind)
        chains = {r["id"]: next(e["value"] for e in r["entities"] if e["type"] == "protein")
                  for r in records}
        visitor.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines'][kind]}"
                     "?diverse=10")
        rows = _rows(page)
        assert 1 <= len(rows) <= 10
        assert "designed chains ≥ 50% identical" in page.locator(".order-choice").inner_text()
        if kind == "protein_redesign":  # point mutants of one parent: one family of all
            first = chains[rows[0][0]]
            assert all(_identity(first, s) >= 0.5 for s in chains.values())
            assert rows == [[rows[0][0], str(len(records))]]
        page.evaluate("() => window.scrollBy(0, document.querySelector('.view-order')"
                      ".getBoundingClientRect().top - 8)")
        page.screenshot(path=str(shots_dir / f"issue20-diverse-{kind}.png"), full_page=False)
