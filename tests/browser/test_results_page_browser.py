"""The results page as a recipient first sees it (issue 19 items 1, 2 and 6), in Chromium
over the seeded demo: the table first, ranked by the kind's primary metric with a Rank
column and labels, the plots one click away, and on a phone the rank, label and key
metrics without a sideways scroll. Screenshots go to ``shots_dir`` and /tmp/shots/results."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import PHONE, Visitor, api_records

pytestmark = [pytest.mark.browser]
SHOTS = Path("/tmp/shots/results")
LABEL = re.compile(r"#(\d+) [A-Za-z0-9_\-]{4,}")


def _url(server, seed, kind: str, query: str = "") -> str:
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][kind]}{query}")


def _shoot(page, shots_dir: Path, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for folder in (shots_dir, SHOTS):
        page.screenshot(path=str(folder / name), full_page=False)


@pytest.mark.parametrize(("kind", "primary", "header"), [
    ("protein_design", "binding_confidence", "Binding confidence"),
    ("small_molecule_design", "optimization_score", "Optimization score"),
])
def test_the_page_opens_on_the_table_ranked_by_the_primary_metric(
        site, visitor, shots_dir, kind, primary, header):
    server, seed = site
    records = api_records(server, seed, kind)
    best = sorted(records, key=lambda r: (-r["metrics"][primary], r["id"]))
    page = visitor.page
    visitor.goto(_url(server, seed, kind))
    rows = page.locator("#results-table tbody tr")
    count = min(len(records), 100)
    assert rows.count() == count
    ranks = page.locator("#results-table tbody td.col-rank").all_inner_texts()
    assert [int(r) for r in ranks] == list(range(1, count + 1))
    ids = [tr.get_attribute("data-result-id") for tr in rows.all()]
    assert ids == [r["id"] for r in best[:count]]
    # Each row is named by its label (#rank in the run, the id's end); the full id is in
    # the link's title.
    links = page.locator("#results-table tbody th.col-id a.rid")
    for n, link in enumerate(links.all()[:20], start=1):
        text = link.inner_text()
        assert LABEL.fullmatch(text) and int(LABEL.fullmatch(text).group(1)) == n
        assert link.get_attribute("title") == ids[n - 1]
        assert ids[n - 1].endswith(text.split()[1])
    # The primary metric is the first metric column and the header says the order.
    assert page.locator("#results-table thead th").nth(2).inner_text().startswith(header)
    order = page.locator(".view-order")
    assert f"ranked by {header}, best first" in " ".join(order.inner_text().split())
    assert order.locator("a", has_text="As run").count() == 1
    # The table is in the first screen: nothing tall above it.
    top = page.locator("#results-table").bounding_box()["y"]
    assert top < 900, top
    if kind == "protein_design":
        _shoot(page, shots_dir, "results-desktop.png")
    # A row's link opens the result with the view's order in its query string.
    href = links.first.get_attribute("href")
    assert href.endswith(f"/results/{ids[0]}?sort=-{primary}")
    # "As run": the run's own order.
    with page.expect_navigation():
        order.locator("a", has_text="As run").click()
    ids_run = [tr.get_attribute("data-result-id") for tr in rows.all()]
    assert ids_run == sorted(r["id"] for r in records)[:count]
    assert "in the order they were run" in page.locator(".view-order").inner_text()


def test_the_plots_are_hidden_until_asked_for(site, visitor, shots_dir):
    server, seed = site
    page = visitor.page
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "explore.json" in r.url else None)
    visitor.goto(_url(server, seed, "protein_design"))
    assert not page.locator("#explore").is_visible()
    assert not page.locator(".histograms").is_visible()
    page.wait_for_timeout(500)
    assert asked == []  # nothing fetched for plots nobody opened
    page.locator("#plots-panel > summary").click()
    page.wait_for_selector("#explore [data-explore-histograms] svg", timeout=15000)
    page.wait_for_selector("#explore [data-explore-scatter] svg a.point", timeout=15000)
    assert len(asked) == 1
    # The scatter's points say the rows' labels.
    first = page.locator("#explore a.point").first.get_attribute("aria-label")
    assert LABEL.match(first), first
    _shoot(page, shots_dir, "results-plots-open.png")
    # Opened once, they stay open while the visitor changes the view (this tab).
    with page.expect_navigation():
        page.locator(".view-order a", has_text="As run").click()
    page.wait_for_selector("#explore [data-explore-scatter] svg a.point", timeout=15000)
    page.locator("#plots-panel > summary").click()  # closed again: closed next time
    with page.expect_navigation():
        page.locator(".view-order a", has_text="Best").click()
    assert not page.locator("#explore").is_visible()


def test_a_phone_shows_rank_label_and_key_metrics_without_scrolling(site, browser,
                                                                    shots_dir):
    server, seed = site
    v = Visitor(browser, viewport=PHONE)
    try:
        page = v.page
        v.goto(_url(server, seed, "protein_design"))
        scroller = page.locator(".table-scroll")
        width = PHONE["width"]
        for row in page.locator("#results-table tbody tr").all()[:5]:
            cells = [row.locator("td.col-rank"), row.locator("th.col-id"),
                     row.locator("td").nth(1), row.locator("td").nth(2)]
            for cell in cells:
                assert cell.is_visible()
                box = cell.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
        # The second visible td (the primary metric) is the binding confidence.
        header = page.locator("#results-table thead th").nth(2)
        assert header.inner_text().startswith("Binding confidence")
        assert page.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1",
                             scroller.element_handle())
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.locator("#results-table").scroll_into_view_if_needed()
        page.evaluate("window.scrollTo(0, document.querySelector('.view-order')"
                      ".getBoundingClientRect().top + window.scrollY - 8)")
        _shoot(page, shots_dir, "results-phone.png")
        # Every column on request (they then scroll sideways, rank and label stay).
        hidden = page.locator("#results-table thead th", has_text="Warnings")
        assert not hidden.is_visible()
        page.locator("label[for=all-columns]").click()
        assert hidden.is_visible()
        assert page.evaluate("(el) => el.scrollWidth > el.clientWidth",
                             scroller.element_handle())
        page.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }",
                      scroller.element_handle())
        label = page.locator("#results-table tbody th.col-id").first.bounding_box()
        assert 0 <= label["x"] < width
        _shoot(page, shots_dir, "results-phone-all-columns.png")
    finally:
        v.close()
    assert v.errors == []
