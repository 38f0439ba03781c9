"""Diverse picks on screen, in Chromium through gunicorn over the seeded demo (issue 20 item
8): the library screen's "Top 10 families" view shot (the order choice, then the table),
its picks ticked into the shortlist, whose view keeps exactly them; the protein design
views (families by sequence identity) shot too. Screenshots go to ``shots_dir``. The
families themselves (RDKit's Butina clusters, Biopython's identity), the toggle and its
way back are server HTML: tests/viewer/results/test_views.py.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"


def _row_ids(page) -> list[str]:
    return page.eval_on_selector_all("table.results tbody tr",
                                     "rows => rows.map(r => r.dataset.resultId)")


def _table_on_top(page) -> None:
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.results figure.mol img')].slice(0, 4)"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)


def _order_choice_on_top(page) -> None:
    page.locator(".view-order").scroll_into_view_if_needed()
    page.evaluate("() => window.scrollBy(0, document.querySelector('.view-order')"
                  ".getBoundingClientRect().top - 8)")


def test_top_families_on_screen_and_into_the_shortlist(site, visitor, shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    page = visitor.page
    visitor.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines'][KIND]}"
                 "?limit=250&diverse=10")
    assert page.locator(".order-choice strong.diverse-on").is_visible()
    shown = _row_ids(page)
    assert 3 <= len(shown) <= 10
    _order_choice_on_top(page)
    page.screenshot(path=str(shots_dir / "issue20-diverse-top-families.png"), full_page=False)
    _table_on_top(page)
    page.screenshot(path=str(shots_dir / "issue20-diverse-table.png"), full_page=False)
    # Tick the first three picks: the shortlist's view is exactly them.
    for rid in shown[:3]:
        page.locator(f"tr[data-result-id='{rid}'] input.shortlist-tick").check()
    view = page.locator("[data-shortlist-view]").get_attribute("href")
    assert set(parse_qs(urlparse(view).query)["ids"][0].split(",")) == set(shown[:3])


def test_protein_families_views_on_screen(site, visitor, shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    page = visitor.page
    for kind in ("protein_design", "protein_redesign"):
        visitor.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines'][kind]}"
                     "?diverse=10")
        assert page.locator(".order-choice").is_visible()
        _order_choice_on_top(page)
        page.screenshot(path=str(shots_dir / f"issue20-diverse-{kind}.png"), full_page=False)
