"""Result pages as a recipient uses them (issue 19 items 4, 7, 10 and 2's labels), in a real
browser: from a sorted, filtered table, #1's Next goes to #2 and #3 of that view and the
breadcrumb returns to it; the compare page puts both designs' metrics side by side with
the better value marked; a partner page framing the 3D embed at 600 px shows its legend and
PAE map without an inner scrollbar. Screenshots (desktop and phone) of the result page,
the compare page and the 3D embed go to ``shots_dir`` and /tmp/shots/result/.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.browser.conftest import PHONE, Visitor, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

VIEW = {"sort": "-iptm", "binding_confidence__gte": "0.6", "warnings": "none"}
EXTRA_SHOTS = Path("/tmp/shots/result")


def _pipeline_url(site) -> str:
    server, seed = site
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines']['protein_design']}")


def _query(url: str) -> dict:
    return {k: v for k, v in parse_qsl(urlsplit(url).query) if k != "page"}


def _shot(page, shots_dir: Path, name: str) -> None:
    """Save a full-page screenshot into the test's folder and /tmp/shots/result/."""
    page.screenshot(path=str(shots_dir / f"result-{name}.png"), full_page=True)
    try:
        EXTRA_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(EXTRA_SHOTS / f"{name}.png"), full_page=True)
    except OSError:
        pass  # a read-only /tmp: the test's own folder has them


def _view_ids(page) -> list[str]:
    return page.locator("tbody tr[data-result-id]").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-result-id'))")


def test_a_result_of_a_view_keeps_its_id_at_hand_and_fits_a_phone(site, visitor, shots_dir):
    """Next, the trail back and the labels (server HTML) are asserted in process:
    tests/viewer/pages/test_views.py."""
    page = visitor.page
    query = "?" + "&".join(f"{k}={v}" for k, v in VIEW.items())
    visitor.goto(_pipeline_url(site) + query)
    page.wait_for_selector("tbody tr[data-result-id]")
    order = _view_ids(page)
    assert len(order) >= 3
    visitor.goto(_pipeline_url(site) + f"/results/{order[2]}" + query)
    # The full id stays at hand: shown under the label, its Copy button beside it.
    id_box = page.locator("[data-result-id]").bounding_box()
    copy_box = page.locator(".link-meta .copy-btn").bounding_box()
    assert abs(copy_box["y"] - id_box["y"]) < 12 and copy_box["x"] > id_box["x"]
    _shot(page, shots_dir, "result-desktop")

    phone = Visitor(visitor.context.browser, viewport=PHONE)
    try:
        phone.goto(_pipeline_url(site) + f"/results/{order[2]}?"
                   + "&".join(f"{k}={v}" for k, v in VIEW.items()))
        scroll = phone.page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= PHONE["width"]  # no sideways scroll on a phone
        _shot(phone.page, shots_dir, "result-phone")
    finally:
        phone.close()
    assert phone.errors == []


def test_compare_draws_both_and_fits_a_phone(site, visitor, shots_dir):
    """The metrics side by side, the better marked (server HTML) are asserted in process:
    tests/viewer/structure_pages/test_views.py."""
    page = visitor.page
    visitor.goto(_pipeline_url(site) + "?sort=-binding_confidence")
    page.wait_for_selector("tbody tr[data-result-id]")
    a, b = _view_ids(page)[:2]
    visitor.goto(_pipeline_url(site) + f"/compare?a={a}&b={b}&sort=-binding_confidence")
    page.wait_for_selector("#structure-viewer[data-drawn='true']", timeout=90_000)
    _shot(page, shots_dir, "compare-desktop")
    phone = Visitor(visitor.context.browser, viewport=PHONE)
    try:
        phone.goto(page.url)
        phone.page.wait_for_selector("#structure-viewer[data-drawn='true']", timeout=90_000)
        # A and B readable side by side: the table fits, no sideways scroll.
        widths = phone.page.locator("table.compare-table").evaluate(
            "t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]")
        assert widths[0] <= widths[1], widths
        _shot(phone.page, shots_dir, "compare-phone")
    finally:
        phone.close()
    assert phone.errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_partner_page_shows_the_whole_3d_embed_in_600_px(site, browser, shots_dir,
                                                           viewport):
    url = _pipeline_url(site) + "?sort=-binding_confidence"
    v = Visitor(browser, **({"viewport": PHONE} if viewport == "phone" else {}))
    host = None
    try:
        v.goto(url)
        v.page.wait_for_selector("tbody tr[data-result-id]")
        first = _view_ids(v.page)[0]
        embed = _pipeline_url(site) + f"/results/{first}/structure?embed=1"
        # The partner pastes the iframe of "Copy embed code" (600 px tall) and its script.
        body = ("<!doctype html><title>Partner wiki</title><h1>Partner wiki</h1>"
                f'<iframe id="mol" src="{embed}" title="3D" width="100%" height="600" '
                "data-share-viewer></iframe>").encode()
        host, host_url = serve(body)
        v.goto(host_url)
        frame = v.page.frame_locator("#mol")
        frame.locator("#structure-viewer[data-drawn='true']").wait_for(timeout=90_000)
        frame.locator("#pae-panel[data-ready='true']").wait_for(timeout=30_000)
        fit = frame.locator("body").evaluate("""() => {
            const box = s => { const r = document.querySelector(s).getBoundingClientRect();
                               return {top: r.top, bottom: r.bottom, left: r.left,
                                       right: r.right, height: r.height}; };
            return {scroll: document.documentElement.scrollHeight,
                    scrollWidth: document.documentElement.scrollWidth,
                    view: innerHeight, width: innerWidth,
                    legend: box("[data-legend='plddt']"), pae: box("#pae-canvas"),
                    viewer: box("#structure-viewer")}; }""")
        assert fit["view"] == 600  # the frame keeps the partner's height
        assert fit["scroll"] <= fit["view"], fit  # no inner scrollbar
        assert fit["scrollWidth"] <= fit["width"], fit
        for part in ("legend", "pae", "viewer"):
            box = fit[part]
            assert box["height"] > 40, (part, fit)
            assert box["top"] >= 0 and box["bottom"] <= fit["view"], (part, fit)
            assert box["left"] >= 0 and box["right"] <= fit["width"], (part, fit)
        assert fit["pae"]["height"] >= 100  # a heatmap one can read and point at
        assert fit["viewer"]["height"] >= 250
        _shot(v.page, shots_dir, f"3d-embed-{viewport}")
    finally:
        if host is not None:
            host.shutdown()
            host.server_close()
        v.close()
    assert v.errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_3d_embed_passes_the_accessibility_audit(site, browser, viewport):
    from tests.browser.test_accessibility import BLOCKING, run_axe

    v = Visitor(browser, bypass_csp=True,  # axe is injected as an inline script
                **({"viewport": PHONE} if viewport == "phone" else {}))
    try:
        v.goto(_pipeline_url(site) + "?sort=-binding_confidence")
        first = _view_ids(v.page)[0]
        v.goto(_pipeline_url(site) + f"/results/{first}/structure?embed=1")
        v.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=90_000)
        result = run_axe(v.page)
        blocking = [x for x in result["violations"] if x["impact"] in BLOCKING]
        assert result["passes"] > 10 and blocking == [], blocking
    finally:
        v.close()
    assert v.errors == []
