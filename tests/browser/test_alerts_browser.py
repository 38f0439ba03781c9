"""Structural alerts and identifiers on screen, in Chromium through gunicorn over the seeded
demo (issue 20 items 1 and 4): the library screen's badges, the alert facet shown when the
plots panel opens, a flagged molecule's result page with its alerts shown, its drawing
(every alert's atoms highlighted) loaded and decoded, and the InChIKey's copy button
shown. Screenshots go to /tmp/shots/issue20/alerts. Which molecules carry which badge,
the facet's counts and link, the alerts' families and the identifiers' values (RDKit's)
are server HTML: tests/viewer/results/test_views.py and tests/viewer/pages/test_views.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdkit import Chem

from tests.browser.conftest import api_records
from tests.support.rdkit_reference import alert_catalog

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


def test_badges_facet_and_result_page_on_screen(site, visitor):
    SHOTS.mkdir(parents=True, exist_ok=True)
    server, seed = site
    path = (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")
    records = api_records(server, seed, KIND)
    expected = _expected(records)
    flagged = [rid for rid, found in expected.items() if found]
    assert flagged, "the demo library has flagged drugs"
    page = visitor.page
    visitor.goto(f"{path}?limit=100")
    first = page.locator(f'tr[data-result-id="{flagged[0]}"]')
    first.scroll_into_view_if_needed()
    assert first.locator("[data-alert-family]").first.is_visible()
    page.screenshot(path=str(SHOTS / "results-badges.png"), full_page=False)
    # The facet shows with the plots, one click away.
    page.locator("details.plots-panel summary").click()
    facet = page.locator('[data-facet="alerts"]')
    assert facet.is_visible()
    facet.screenshot(path=str(SHOTS / "alert-facet.png"))
    # The result page of a molecule with a PAINS alert if there is one, else the first.
    pains = [rid for rid in flagged if any(s.startswith("PAINS") for _n, s in expected[rid])]
    chosen = (pains or flagged)[0]
    record = next(r for r in records if r["id"] == chosen)
    visitor.goto(f"{path}/results/{chosen}")
    for alert_name, _filter_set in expected[chosen]:
        assert page.locator(f'li[data-alert="{alert_name}"]').is_visible()
    # The drawing is drawn on request (lazy, budgeted child): wait until it has loaded.
    page.wait_for_function("() => { const i = document.querySelector('figure.mol-large img');"
                           " return i && i.complete && i.naturalWidth > 0; }", timeout=30_000)
    key = Chem.MolToInchiKey(Chem.MolFromSmiles(record["smiles"]))
    copy = page.locator(f'[data-identifier="inchikey"] button.copy-btn[data-copy="{key}"]')
    assert copy.is_visible()
    assert page.locator('[data-identifier="canonical_smiles"] button.copy-btn').is_visible()
    section = page.locator("section", has=page.locator("#molecule-heading"))
    section.screenshot(path=str(SHOTS / "result-alerts-identifiers.png"))
