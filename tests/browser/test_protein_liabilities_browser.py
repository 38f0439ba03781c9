"""Protein properties and sequence liabilities in Chromium, through gunicorn over the seeded
demo: the protein design table shows Biopython's pI and GRAVY and the liability count
for the rows the API holds, the liability facet narrows the view to exactly the designs
with that motif, and a result page marks each motif in its designed chain. Screenshots go
to ``shots_dir`` (and /tmp/shots/issue20/proteins when that folder exists)."""

from __future__ import annotations

from pathlib import Path

import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from tests.browser.conftest import Visitor, api_records

pytestmark = [pytest.mark.browser, pytest.mark.slow]
EXTRA_SHOTS = Path("/tmp/shots/issue20/proteins")
# The values of the column that sorts by ``key``, per row id (read in the page).
COLUMN_JS = """key => {
  const sorts = new RegExp('[?&]sort=-?' + key + '(&|$)');
  const head = [...document.querySelectorAll('table.results thead th')]
    .find(th => [...th.querySelectorAll('a.sort-link')].some(a => sorts.test(a.href)));
  const at = head.cellIndex;
  return Object.fromEntries([...document.querySelectorAll('table.results tbody tr')]
    .map(tr => [tr.dataset.resultId, tr.cells[at].dataset.sort]));
}"""


def _shot(page, shots_dir: Path, name: str, **options) -> None:
    page.screenshot(path=str(shots_dir / name), **options)
    if EXTRA_SHOTS.is_dir():
        page.screenshot(path=str(EXTRA_SHOTS / name), **options)


def _designed(record: dict) -> str:
    return next(e["value"] for e in record["entities"] if e["type"] == "protein")


def test_the_table_facet_and_result_page_of_protein_liabilities(site, browser, shots_dir):
    server, seed = site
    records = {r["id"]: r for r in api_records(server, seed, "protein_design")}
    link = seed["share_links"]["public"]["id"]
    path = f"{server.url}/share/{link}/pipelines/{seed['pipelines']['protein_design']}"
    v = Visitor(browser, viewport={"width": 1600, "height": 900})
    v.goto(f"{path}?sort=-liability_count&limit=25")
    shown_pi = v.page.evaluate(COLUMN_JS, "isoelectric_point")
    shown_gravy = v.page.evaluate(COLUMN_JS, "gravy")
    shown_count = v.page.evaluate(COLUMN_JS, "liability_count")
    assert len(shown_pi) == 25
    for rid, value in shown_pi.items():
        analysis = ProteinAnalysis(_designed(records[rid]))
        assert float(value) == pytest.approx(analysis.isoelectric_point(), abs=1e-3)
        assert float(shown_gravy[rid]) == pytest.approx(analysis.gravy(), abs=1e-3)
    counts = [int(shown_count[rid]) for rid in shown_pi]
    assert counts == sorted(counts, reverse=True) and counts[0] > 0
    # The protein columns sit at the right end of a wide table: scroll there to show them.
    v.page.locator(".table-scroll").evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    v.page.evaluate("() => document.querySelector('#results-table').scrollIntoView()")
    _shot(v.page, shots_dir, "protein-table-liabilities.png")

    # The facet: open the counts, follow "deamidation", get exactly those designs.
    v.page.locator("#plots-panel summary").click()
    facet = v.page.locator('[data-facet="liabilities"]')
    expected = int(facet.locator('[data-value="deamidation"]').inner_text().replace("\u2009", ""))
    _shot(v.page, shots_dir, "protein-liability-facet.png")
    wanted = {rid for rid, r in records.items()
              if any(pair in _designed(r).upper() for pair in ("NG", "NS"))}
    assert expected == len(wanted) > 0
    facet.locator("a", has_text="deamidation").click()
    v.page.wait_for_load_state()
    assert "liability=deamidation" in v.page.url
    assert int(v.page.locator("#match-count").inner_text().replace("\u2009", "")) == len(wanted)

    # A result page: every motif marked, the names in the marks' titles.
    rid = next(iter(wanted))
    v.goto(f"{path}/results/{rid}")
    report = v.page.locator("section.protein-report")
    assert report.locator("mark.liab-deamidation").count() > 0
    title = report.locator("pre mark.liab-deamidation").first.get_attribute("title")
    assert "Deamidation (NG, NS)" in title
    text = report.locator("pre.seq").inner_text().replace(" ", "").replace("\n", "")
    assert text == _designed(records[rid])
    report.scroll_into_view_if_needed()
    _shot(v.page, shots_dir, "protein-result-liabilities.png")
    v.close()
    assert v.errors == []
