"""2D chemistry in Chromium, through gunicorn (two workers) over the seeded demo: every
molecule of both small-molecule tables, of a result page and of a substructure view (its
matched atoms highlighted) is drawn: the image loaded and decoded, not a blank box. No
JavaScript error anywhere. The pages' HTML (a drawing or the SMILES with a note in every
row, RDKit's properties, the substructure form's exact set) is checked in process:
tests/viewer/results/test_views.py, tests/viewer/pages/test_views.py."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.rdBase import BlockLogs

from tests.browser.conftest import Visitor, api_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SMALL_MOLECULE_KINDS = ("small_molecule_design", "small_molecule_library_screen")
CHLOROPHENYL = "c1ccc(Cl)cc1"


def _mol(smiles: str):
    with BlockLogs():
        return Chem.MolFromSmiles(smiles or "")


def _all_drawn(page, within: str = "") -> int:
    """Scroll every depiction (of the element ``within`` selects, or the whole page) into
    view (they load lazily); return how many are decoded.

    Decoded means the browser loaded the SVG and knows its size: a broken or refused
    image has naturalWidth 0. A results page's table is ``within="table"``: the run's
    reference ligands are drawn too, in "What was run", folded until opened.
    """
    selector = f"{within} figure.mol img".strip()
    images = page.locator(selector)
    for index in range(images.count()):
        images.nth(index).scroll_into_view_if_needed()
    page.wait_for_function(  # a function: an expression would be eval'd, refused by CSP
        "selector => [...document.querySelectorAll(selector)]"
        ".every(img => img.complete && img.naturalWidth > 0)", arg=selector, timeout=30_000)
    return images.count()


@pytest.mark.parametrize("kind", SMALL_MOLECULE_KINDS)
def test_every_molecule_of_a_results_table_is_drawn(site, browser, kind):
    server, seed = site
    v = Visitor(browser)
    link = seed["share_links"]["public"]["id"]
    v.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines'][kind]}?limit=100")
    records = api_records(server, seed, kind)[:100]
    drawable = sum(_mol(r.get("smiles")) is not None for r in records)
    assert drawable > 0
    assert _all_drawn(v.page, within="table") == drawable
    v.close()
    assert v.errors == []


def test_a_result_page_draws_the_molecule(site, browser):
    server, seed = site
    v = Visitor(browser)
    kind = "small_molecule_design"
    record = api_records(server, seed, kind)[0]
    v.goto(f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
           f"{seed['pipelines'][kind]}/results/{record['id']}")
    assert _all_drawn(v.page) == 1
    assert v.page.locator("figure.mol-large img").bounding_box()["width"] == 320
    v.close()
    assert v.errors == []


def test_the_highlighted_drawings_of_a_substructure_view_are_drawn(site, browser):
    server, seed = site
    kind = "small_molecule_library_screen"
    pattern = Chem.MolFromSmarts(CHLOROPHENYL)
    wanted = {r["id"] for r in api_records(server, seed, kind)
              if (mol := _mol(r.get("smiles"))) is not None and mol.HasSubstructMatch(pattern)}
    assert wanted
    v = Visitor(browser)
    v.goto(f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
           f"{seed['pipelines'][kind]}?limit=250&smarts={CHLOROPHENYL}")
    v.page.wait_for_selector("#match-count", timeout=30_000)
    assert _all_drawn(v.page, within="table") == len(wanted)
    v.close()
    assert v.errors == []
