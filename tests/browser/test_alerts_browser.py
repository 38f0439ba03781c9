"""Structural alerts and identifiers in Chromium through gunicorn over the seeded demo
(issue 20 items 1 and 4): the library screen's table shows a PAINS / Brenk badge on exactly
the molecules RDKit's FilterCatalog flags, the alert names in its title; ``alert=`` from the
facet keeps those molecules; a flagged molecule's result page names its alerts and
families, draws every alert's atoms highlighted (one colour each), gives the InChIKey
(= ``Chem.MolToInchiKey``) and canonical SMILES with working copy buttons.
Screenshots go to /tmp/shots/issue20/alerts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdkit import Chem

from tests.browser.conftest import api_records
from tests.rdkit_reference import alert_catalog

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"
SHOTS = Path("/tmp/shots/issue20/alerts")


def _expected(records: list[dict]) -> dict[str, list[tuple[str, str]]]:
    catalog = alert_catalog()
    out = {}
    for record in records:
        mol = Chem.MolFromSmiles(record["smiles"])
        out[record["id"]] = [(e.GetDescription(), e.GetProp("FilterSet"))
                             for e in catalog.GetMatches(mol)]
    return out


def test_badges_facet_and_result_page(site, visitor):
    SHOTS.mkdir(parents=True, exist_ok=True)
    server, seed = site
    path = (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")
    records = api_records(server, seed, KIND)
    expected = _expected(records)
    page = visitor.page
    visitor.goto(f"{path}?limit=100")
    badged = page.eval_on_selector_all(
        "table.results tbody tr",
        "rows => Object.fromEntries(rows.map(r => [r.dataset.resultId, "
        "[...r.querySelectorAll('[data-alert-family]')].map(b => b.textContent + ' ' + b.title)]))")
    assert set(badged) == set(expected)
    for rid, titles in badged.items():
        families = {"PAINS" if s.startswith("PAINS") else "Brenk"
                    for _name, s in expected[rid]}
        assert {t.split(" ")[0] for t in titles} == families, rid
        for name, _family in expected[rid]:
            assert any(name in title for title in titles)
    flagged = [rid for rid, found in expected.items() if found]
    assert flagged, "the demo library has flagged drugs"
    first = page.locator(f'tr[data-result-id="{flagged[0]}"]')
    first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "results-badges.png"), full_page=False)
    # The facet's counts, and its link keeps exactly one alert's molecules.
    page.locator("details.plots-panel summary").click()
    facet = page.locator('[data-facet="alerts"]')
    assert facet.is_visible()
    name = expected[flagged[0]][0][0]
    count = sum(1 for found in expected.values() if name in {n for n, _ in found})
    assert facet.locator(f'[data-value="{name}"]').inner_text().strip() == str(count)
    facet.screenshot(path=str(SHOTS / "alert-facet.png"))
    with page.expect_navigation():
        facet.locator("a", has_text=name).click()
    shown = set(page.eval_on_selector_all("table.results tbody tr",
                                          "rows => rows.map(r => r.dataset.resultId)"))
    assert shown == {rid for rid, found in expected.items() if name in {n for n, _ in found}}
    # The result page of a molecule with a PAINS alert if there is one, else the first.
    pains = [rid for rid in flagged if any(s.startswith("PAINS") for _n, s in expected[rid])]
    chosen = (pains or flagged)[0]
    record = next(r for r in records if r["id"] == chosen)
    visitor.goto(f"{path}/results/{chosen}")
    for alert_name, filter_set in expected[chosen]:
        item = page.locator(f'li[data-alert="{alert_name}"]')
        assert item.is_visible()
        family = "pains" if filter_set.startswith("PAINS") else "brenk"
        assert item.get_attribute("data-family") == family
    image = page.locator("figure.mol-large img")
    assert "highlight=" in image.get_attribute("src")
    # The drawing is drawn on request (lazy, budgeted child): wait until it has loaded.
    page.wait_for_function("() => { const i = document.querySelector('figure.mol-large img');"
                           " return i && i.complete && i.naturalWidth > 0; }", timeout=30_000)
    mol = Chem.MolFromSmiles(record["smiles"])
    key = Chem.MolToInchiKey(mol)
    assert page.locator('[data-identifier="inchikey"] pre').inner_text().strip() == key
    copy = page.locator(f'[data-identifier="inchikey"] button.copy-btn[data-copy="{key}"]')
    assert copy.is_visible()
    assert page.locator('[data-identifier="canonical_smiles"] button.copy-btn').get_attribute(
        "data-copy") == Chem.MolToSmiles(mol)
    section = page.locator("section", has=page.locator("#molecule-heading"))
    section.screenshot(path=str(SHOTS / "result-alerts-identifiers.png"))
