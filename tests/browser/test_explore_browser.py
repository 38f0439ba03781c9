"""The results page's widgets load their shared modules fingerprinted, in Chromium through
gunicorn over the seeded demo: through the page's import map no module of the results
page is asked for by a plain URL (which could only be revalidated), and the plots still
draw from them. Exploring a set larger than one API page (header sort and the filter form
over every result, the facets, access asked of the API on every request) is server HTML:
tests/viewer/results/test_views.py."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_widgets_shared_modules_are_fetched_fingerprinted(site, visitor):
    server, seed = site
    asked: list[str] = []
    visitor.page.on("request", lambda request: asked.append(request.url))
    visitor.goto(f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
                 f"{seed['pipelines']['protein_design']}?sort=-iptm")
    visitor.page.locator("#plots-panel > summary").click()  # the plots are one click away
    visitor.page.wait_for_selector("#explore svg", timeout=15000)
    modules = [url for url in asked if "/static/js/" in url]
    assert any("/static/js/results/" in url for url in modules), modules
    assert [url for url in modules if "?v=" not in url] == []
