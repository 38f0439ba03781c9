"""The prediction pages in a real browser (Debian's Chromium through Playwright) against
gunicorn over ``flask seed-demo``: the ADME table draws every molecule and sorts by a
header click without JavaScript; the structure-and-binding page puts the best sample
first with its proper labels. No JavaScript errors on either. With
``UPDATE_SCREENSHOTS=1`` it rewrites ``docs/adme-desktop.png``.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")


def prediction_url(site, application: str) -> str:
    """Return the URL of a demo prediction's page under the public link."""
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    return f"{server.url}/share/{link}/predictions/{seed['predictions'][application]}"


def column(page, index: int) -> list[str]:
    """Return the text of the ADME table's cells of column ``index`` (0 = depiction)."""
    return page.eval_on_selector_all(
        "table.adme tbody tr", f"rows => rows.map(r => r.children[{index}].innerText.trim())")


def test_adme_page_draws_every_molecule_and_sorts_by_permeability(site, visitor, shots_dir):
    page = visitor.page
    visitor.goto(prediction_url(site, "adme"))
    rows = page.locator("table.adme tbody tr")
    assert rows.count() == 10
    # Depictions load lazily: bring each into view, then every one must be drawn.
    images = page.locator("table.adme tbody tr td.col-depiction img")
    assert images.count() == rows.count()
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.adme td.col-depiction img')]"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=15000)
    headers = page.eval_on_selector_all("table.adme thead th", "ths => ths.map(t => t.innerText)")
    assert any("logD 7.4" in h for h in headers)
    assert any("Permeability" in h and "10\u207b\u2076 cm/s" in h for h in headers)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots_dir / "adme-desktop.png"), full_page=True)

    # A plain link in the header sorts on the server; a second click reverses it.
    page.locator("th.col-permeability a.sort-link").click()
    page.wait_for_url("**sort=permeability**")
    values = [float(v) for v in column(page, 4)]
    assert values == sorted(values) and len(values) == 10
    assert page.get_attribute("th.col-permeability", "aria-sort") == "ascending"
    page.locator("th.col-permeability a.sort-link").click()
    page.wait_for_url("**sort=-permeability**")
    assert [float(v) for v in column(page, 4)] == sorted(values, reverse=True)
    assert page.get_attribute("th.col-permeability", "aria-sort") == "descending"


def test_structure_and_binding_page_puts_the_best_sample_first(site, visitor):
    page = visitor.page
    visitor.goto(prediction_url(site, "structure_and_binding"))
    assert page.inner_text("#best-heading").startswith("Best sample: sample 1")
    labels = page.eval_on_selector_all("#best-heading ~ dl.metric-facts dt",
                                       "dts => dts.map(d => d.innerText.trim())")
    assert labels[:4] == ["ipTM", "pTM", "Complex ipLDDT", "Complex pLDDT"]
    headers = page.eval_on_selector_all("table.samples thead th",
                                        "ths => ths.map(t => t.innerText)")
    assert headers[1].startswith("ipTM") and headers[2].startswith("pTM")
    first = page.locator("table.samples tbody tr").first
    assert "Best" in first.inner_text() and first.get_attribute("data-sample") == "1"
    assert page.locator("table.samples tbody tr").count() == 3
    link = first.locator("a", has_text="View in 3D")
    assert link.get_attribute("href").endswith("/structure?sample=1")
