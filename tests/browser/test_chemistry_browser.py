"""2D chemistry in Chromium, through gunicorn (two workers) over the seeded demo: every
molecule of both small-molecule tables and of a result page is drawn (the image loaded
and decoded, not a blank box), the computed properties are RDKit's, and the substructure
filter form gives exactly the set RDKit finds over every result's SMILES (read from the
API here), with the matched atoms highlighted. No JavaScript error anywhere."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.Chem import Descriptors
from rdkit.rdBase import BlockLogs

from tests.browser.conftest import Visitor, api_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SMALL_MOLECULE_KINDS = ("small_molecule_design", "small_molecule_library_screen")
CHLOROPHENYL = "c1ccc(Cl)cc1"


def _mol(smiles: str):
    with BlockLogs():
        return Chem.MolFromSmiles(smiles or "")


def _all_drawn(page) -> int:
    """Scroll every depiction into view (they load lazily); return how many are decoded.

    Decoded means the browser loaded the SVG and knows its size: a broken or refused
    image has naturalWidth 0.
    """
    images = page.locator("figure.mol img")
    for index in range(images.count()):
        images.nth(index).scroll_into_view_if_needed()
    page.wait_for_function(  # a function: an expression would be eval'd, refused by CSP
        "() => [...document.querySelectorAll('figure.mol img')]"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)
    return images.count()


@pytest.mark.parametrize("kind", SMALL_MOLECULE_KINDS)
def test_every_molecule_of_a_results_table_is_drawn(site, browser, kind):
    server, seed = site
    v = Visitor(browser)
    link = seed["share_links"]["public"]["id"]
    v.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines'][kind]}?limit=100")
    records = api_records(server, seed, kind)[:100]
    rows = v.page.locator("table.results tbody tr")
    assert rows.count() == len(records)
    drawable = sum(_mol(r.get("smiles")) is not None for r in records)
    assert drawable > 0
    assert _all_drawn(v.page) == drawable
    # Every row has its drawing, or the SMILES text with a note: never an empty cell.
    assert v.page.locator("td.smiles figure.mol").count() == len(records)
    assert v.page.locator("td.smiles .mol-undrawn").count() == len(records) - drawable
    v.close()
    assert v.errors == []


def test_a_result_page_draws_the_molecule_and_lists_rdkits_properties(site, browser):
    server, seed = site
    v = Visitor(browser)
    kind = "small_molecule_design"
    record = api_records(server, seed, kind)[0]
    v.goto(f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
           f"{seed['pipelines'][kind]}/results/{record['id']}")
    image = v.page.locator("figure.mol-large img")
    assert image.get_attribute("width") == "320"
    assert _all_drawn(v.page) == 1
    table = v.page.locator("table.chemistry tbody tr")
    assert table.count() == 8
    weight = v.page.locator("tr[data-property=mol_weight] td.num").inner_text()
    expected = Descriptors.MolWt(_mol(record["smiles"]))
    assert float(weight.replace("\u2009", "").replace(",", "")) == pytest.approx(expected,
                                                                                abs=0.05)
    assert v.page.locator("tr[data-property=tpsa] td").nth(1).inner_text() == "Å²"
    v.close()
    assert v.errors == []


def test_the_substructure_filter_gives_exactly_the_matching_set(site, browser):
    server, seed = site
    kind = "small_molecule_library_screen"
    records = api_records(server, seed, kind)
    pattern = Chem.MolFromSmarts(CHLOROPHENYL)
    wanted = {r["id"] for r in records
              if (mol := _mol(r.get("smiles"))) is not None and mol.HasSubstructMatch(pattern)}
    assert 0 < len(wanted) < len(records)  # some of the demo molecules, not all

    v = Visitor(browser)
    v.goto(f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
           f"{seed['pipelines'][kind]}?limit=250")
    page = v.page
    page.locator("details.explore-filters summary").click()
    page.get_by_label("Substructure (SMARTS or SMILES)").fill(CHLOROPHENYL)
    with page.expect_navigation():
        page.locator("details.explore-filters button[type=submit]").click()
    page.wait_for_selector("#match-count", timeout=30_000)
    assert "smarts=" in page.url
    assert page.locator("#match-count").inner_text().replace("\u2009", "") == str(len(wanted))
    shown = {tr.get_attribute("data-result-id")
             for tr in page.locator("table.results tbody tr").all()}
    assert shown == wanted
    # The matched atoms are highlighted: every drawing of the view asks for them.
    sources = page.locator("figure.mol img").evaluate_all("els => els.map(e => e.src)")
    assert sources and all("highlight=c1ccc(Cl)cc1" in s.replace("%28", "(")
                           .replace("%29", ")") for s in sources)
    assert _all_drawn(page) == len(sources)
    v.close()
    assert v.errors == []
