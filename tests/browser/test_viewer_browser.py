"""The viewer in a real browser (Debian's Chromium through Playwright) against gunicorn.

One gunicorn server over a database filled by ``flask --app app seed-demo --json``. Covers
what needs a browser: embedding by another origin (the browser's frame rules), Mol*'s 3D
viewer, JavaScript errors on every page, and with ``UPDATE_SCREENSHOTS=1`` the README
screenshots ``docs/overview-*.png``, ``docs/results-*.png`` and
``docs/structure-desktop.png`` (otherwise they go to a temporary folder, so a test run
leaves the work tree clean). The pages' server HTML (the overview, every kind's table,
pagination, sorting, a result page, downloads, the gone page) is asserted in process:
tests/viewer/{pages,results}/test_views.py, tests/viewer/test_error_pages.py.
"""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")


def public(site, suffix: str = "") -> str:
    """Return the URL of the public demo link on the live server, plus ``suffix``."""
    server, seed = site
    return f"{server.url}/share/{seed['share_links']['public']['id']}{suffix}"


def api_results(site, kind: str, **params) -> dict:
    """Ask the API (not the viewer) for a page of a demo pipeline's results."""
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    url = f"{server.url}/compute/v1/share/{link}/pipelines/{seed['pipelines'][kind]}/results"
    return httpx.get(url, params=params, timeout=10).json()


@pytest.fixture
def other_origin(site):
    """A page on another loopback port that frames an embed page and a normal page."""
    target = public(site)
    body = (
        "<!doctype html><title>Partner</title><h1>Partner site</h1>"
        f'<iframe id="embed" src="{target}?embed=1" width="800" height="500"></iframe>'
        f'<iframe id="normal" src="{target}" width="800" height="500"></iframe>'
    ).encode()
    server, url = serve(body)  # "localhost": another origin than the viewer's 127.0.0.1
    yield url
    server.shutdown()
    server.server_close()


def test_embed_page_is_framed_by_another_origin_and_normal_page_refuses(browser, other_origin):
    v = Visitor(browser)
    v.goto(other_origin)
    v.page.wait_for_load_state("networkidle")
    embed = v.page.frame_locator("#embed")
    assert embed.locator("h1").inner_text() == "Shared results"
    assert embed.locator(".site-header").count() == 0  # no chrome in embed mode
    hrefs = [a.get_attribute("href") for a in embed.locator("a[href*='/pipelines/']").all()]
    assert hrefs and all("embed=1" in h for h in hrefs)
    # The normal page is not shown: the browser asked for it as a frame (Sec-Fetch-Dest),
    # so the viewer answers a notice that says to use ?embed=1 (app.viewer.embeds), not
    # the browser's grey box; nothing of the link is in it.
    normal = v.page.frame_locator("#normal")
    assert "cannot be shown inside another page" in normal.locator("h1").inner_text()
    assert "?embed=1" in normal.locator("main").inner_text()
    assert normal.locator(".card, a[href*='/pipelines/']").count() == 0
    frame_urls = [frame.url for frame in v.page.frames]
    assert "chrome-error://chromewebdata/" not in frame_urls
    v.context.close()
    assert v.errors == []


def test_structure_viewer_shows_the_molecule(site, visitor, shots_dir):
    _server, seed = site
    record = api_results(site, "protein_design", limit=1)["data"][0]
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}"
                              f"/results/{record['id']}"))
    visitor.page.locator("a", has_text="View 3D structure").click()
    visitor.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=60_000)
    assert visitor.page.get_attribute("#structure-viewer", "data-loaded") == "true"
    assert visitor.page.locator("#structure-viewer canvas").count() >= 1
    visitor.page.screenshot(path=str(shots_dir / "structure-desktop.png"))


def test_prediction_structure_renders_without_errors(site, visitor):
    _server, seed = site
    visitor.goto(public(site, f"/predictions/{seed['predictions']['structure_and_binding']}"))
    visitor.page.locator("a", has_text="View 3D structure").click()
    visitor.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=60_000)
    assert visitor.page.get_attribute("#structure-viewer", "data-loaded") == "true"
    assert visitor.page.locator("#structure-viewer canvas").count() >= 1
    # The visitor fixture fails the test on any JavaScript or console error.


def test_no_javascript_errors_on_any_page(site, browser):
    _server, seed = site
    v = Visitor(browser)
    for kind, pipeline_id in seed["pipelines"].items():
        v.goto(public(site, f"/pipelines/{pipeline_id}"))
        first = api_results(site, kind, limit=1)["data"][0]["id"]
        v.goto(public(site, f"/pipelines/{pipeline_id}/results/{first}"))
        v.page.locator(".copy-btn").first.click()
    for prediction_id in seed["predictions"].values():
        v.goto(public(site, f"/predictions/{prediction_id}"))
    v.goto(public(site, "?embed=1"))
    v.context.close()
    assert v.errors == []


def test_screenshots_for_the_readme(site, browser, shots_dir):
    _server, seed = site
    shots = {
        "overview": public(site),
        "results": public(site, f"/pipelines/{seed['pipelines']['protein_design']}?limit=25"),
        # A sorted, filtered view of the whole set with its plots (docs/viewer.md).
        "explore": public(site, f"/pipelines/{seed['pipelines']['protein_design']}"
                                "?sort=-binding_confidence&iptm__gte=0.6&warnings=none&limit=10"),
        # Small molecules drawn by RDKit, the matched substructure highlighted.
        "molecules": public(site, f"/pipelines/{seed['pipelines']['small_molecule_design']}"
                                  "?smarts=c1ccc(Cl)cc1&sort=-qed&limit=10"),
    }
    for name, url in shots.items():
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            v = Visitor(browser, viewport=viewport)
            v.goto(url)
            if name == "explore":  # the plots, one click away, drawn once explore.json answers
                v.page.locator("#plots-panel > summary").click()
                v.page.wait_for_selector("#explore [data-explore-histograms] svg")
            if name == "molecules":  # lazy images below the fold: load them all for the shot
                # Functions, not expressions: the page's CSP refuses eval of a string.
                v.page.evaluate("() => document.querySelectorAll('img').forEach("
                                "i => { i.loading = 'eager'; })")
                v.page.wait_for_function("() => Array.from(document.images).every("
                                         "i => i.complete && i.naturalWidth > 0)")
            path = shots_dir / f"{name}-{label}.png"
            v.page.screenshot(path=str(path), full_page=True)
            assert path.stat().st_size > 10_000
            # The page never scrolls sideways as a whole; only the table does.
            assert v.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            v.context.close()
            assert v.errors == []
