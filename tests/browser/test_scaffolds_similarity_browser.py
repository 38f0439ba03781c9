"""Scaffolds and similarity in Chromium through gunicorn over the seeded demo (issue 20
items 2 and 3): "Find similar" on a library row opens the similarity view with the query
molecule drawn above the table, the row itself first at similarity 1 and the column
descending, values equal to RDKit's Tanimoto on Morgan fingerprints; "Group by scaffold"
shows one row per Bemis-Murcko scaffold with RDKit's counts. Screenshots go to
/tmp/shots/issue20/scaffolds_similarity.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem.Scaffolds import MurckoScaffold

from tests.browser.conftest import api_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"
SHOTS = Path("/tmp/shots/issue20/scaffolds_similarity")


def _fp(smiles: str):
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return generator.GetFingerprint(Chem.MolFromSmiles(smiles))


def _table_on_top(page) -> None:
    """Scroll the results table to the top of the window, its drawings loaded."""
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    images = page.locator("table.results figure.mol img")
    for index in range(min(images.count(), 6)):
        images.nth(index).scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.results figure.mol img')].slice(0, 6)"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)


def test_find_similar_and_group_by_scaffold(site, visitor, shots_dir):
    SHOTS.mkdir(parents=True, exist_ok=True)
    server, seed = site
    path = (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")
    records = {r["id"]: r["smiles"] for r in api_records(server, seed, KIND)}
    page = visitor.page
    visitor.goto(f"{path}?limit=100")
    first = page.locator("table.results tbody tr").first
    start = first.get_attribute("data-result-id")
    with page.expect_navigation():
        first.locator("a.find-similar").click()
    query = page.locator("section.similar-query")
    assert query.is_visible()
    page.wait_for_function(
        "() => [...document.querySelectorAll('section.similar-query img')]"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)
    shown = page.eval_on_selector_all(
        "table.results tbody tr", "rows => rows.map(r => [r.dataset.resultId, "
        "r.querySelector('td.col-similarity').innerText.trim()])")
    expected = {rid: DataStructs.TanimotoSimilarity(_fp(records[start]), _fp(s))
                for rid, s in records.items()}
    assert shown[0][1] == "1.000"
    assert [float(v) for _rid, v in shown] == [round(expected[rid], 3) for rid, _v in shown]
    assert [rid for rid, _v in shown] == sorted(expected, key=lambda r: (-expected[r], r))[
        :len(shown)]
    page.screenshot(path=str(SHOTS / "similarity-view.png"), full_page=False)
    page.screenshot(path=str(shots_dir / "issue20-similarity-view.png"), full_page=False)
    _table_on_top(page)
    page.screenshot(path=str(SHOTS / "similarity-table.png"), full_page=False)

    visitor.goto(f"{path}?limit=100")
    page.locator("details.scaffold-facet summary").click()
    with page.expect_navigation():
        page.locator("details.scaffold-facet a", has_text="Group by scaffold").click()
    counts = Counter(Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(
        Chem.MolFromSmiles(s))) or "acyclic" for s in records.values())
    cells = page.eval_on_selector_all(
        "table.results tbody td.col-group a",
        "links => links.map(a => [new URL(a.href).searchParams.get('scaffold'), "
        "a.innerText.trim()])")
    assert {s: int(n) for s, n in cells} == dict(counts)
    _table_on_top(page)
    page.screenshot(path=str(SHOTS / "group-by-scaffold.png"), full_page=False)
    page.screenshot(path=str(shots_dir / "issue20-group-by-scaffold.png"), full_page=False)
