"""The ADME prediction page in a real browser (Debian's Chromium through Playwright) against
gunicorn over ``flask seed-demo``: every molecule's lazy depiction is drawn, no JavaScript
error. With ``UPDATE_SCREENSHOTS=1`` it rewrites ``docs/adme-desktop.png``. The page's
server HTML (headers, sorting by a header's link, the best sample first) is asserted in
process: tests/viewer/pages/test_views.py.
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


def test_adme_page_draws_every_molecule(site, visitor, shots_dir):
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
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots_dir / "adme-desktop.png"), full_page=True)
