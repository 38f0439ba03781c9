"""The results page as a recipient first sees it (issue 19 items 1, 2 and 6), in Chromium
over the seeded demo: the table first, ranked by the kind's primary metric with a Rank
column and labels, the plots one click away, and on a phone the rank, label and key
metrics without a sideways scroll. Screenshots go to ``shots_dir`` and /tmp/shots/results."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import PHONE, Visitor

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


@pytest.mark.parametrize("kind", ["protein_design", "small_molecule_design"])
def test_the_table_is_in_the_first_screen(site, visitor, shots_dir, kind):
    """Its ranking, Rank column, labels and "As run" (server HTML) are asserted in process:
    tests/viewer/results/test_views.py."""
    server, seed = site
    page = visitor.page
    visitor.goto(_url(server, seed, kind))
    # The table is in the first screen: nothing tall above it.
    top = page.locator("#results-table").bounding_box()["y"]
    assert top < 900, top
    if kind == "protein_design":
        _shoot(page, shots_dir, "results-desktop.png")


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
