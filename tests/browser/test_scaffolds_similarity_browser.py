"""Scaffolds and similarity on screen, in Chromium through gunicorn over the seeded demo
(issue 20 items 2 and 3): "Find similar" on a library row opens the similarity view with
the query molecule drawn above the table (shown, its image decoded); "Group by scaffold"
from the scaffold facet shows its table. Screenshots go to
/tmp/shots/issue20/scaffolds_similarity. The values (RDKit's Tanimoto on Morgan
fingerprints, in order; RDKit's Bemis-Murcko counts) are server HTML:
tests/viewer/results/test_views.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"
SHOTS = Path("/tmp/shots/issue20/scaffolds_similarity")


def _table_on_top(page) -> None:
    """Scroll the results table to the top of the window, its drawings loaded."""
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    images = page.locator("table.results figure.mol img")
    for index in range(min(images.count(), 6)):
        images.nth(index).scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('table.results').scrollIntoView()")
    page.wait_for_function(
        "() => [...document.querySelectorAll('table.results figure.mol img')].slice(0, 6)"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)


def test_find_similar_and_group_by_scaffold_on_screen(site, visitor, shots_dir):
    SHOTS.mkdir(parents=True, exist_ok=True)
    server, seed = site
    path = (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")
    page = visitor.page
    visitor.goto(f"{path}?limit=100")
    first = page.locator("table.results tbody tr").first
    with page.expect_navigation():
        first.locator("a.find-similar").click()
    query = page.locator("section.similar-query")
    assert query.is_visible()
    page.wait_for_function(
        "() => [...document.querySelectorAll('section.similar-query img')]"
        ".every(img => img.complete && img.naturalWidth > 0)", timeout=30_000)
    page.screenshot(path=str(SHOTS / "similarity-view.png"), full_page=False)
    page.screenshot(path=str(shots_dir / "issue20-similarity-view.png"), full_page=False)
    _table_on_top(page)
    page.screenshot(path=str(SHOTS / "similarity-table.png"), full_page=False)

    visitor.goto(f"{path}?limit=100")
    page.locator("details.scaffold-facet summary").click()
    with page.expect_navigation():
        page.locator("details.scaffold-facet a", has_text="Group by scaffold").click()
    assert page.locator("table.results tbody td.col-group a").first.is_visible()
    _table_on_top(page)
    page.screenshot(path=str(SHOTS / "group-by-scaffold.png"), full_page=False)
    page.screenshot(path=str(shots_dir / "issue20-group-by-scaffold.png"), full_page=False)
