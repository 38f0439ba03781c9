"""Glossary links and the inline similar_to error in Chromium, through gunicorn over the
seeded demo (issue 20 loose ends): following the instability index's header "?" lands on
its entry (Guruprasad's > 40) in view; a ``similar_to`` RDKit cannot read shows its error,
visible, beside the similarity field (400). Where every "?" leads, the alerts of a
molecule and the error's markup are server HTML, asserted in process
(tests/viewer/results/test_views.py, tests/viewer/pages/test_views.py).

Screenshots go to ``shots_dir`` (docs/ with UPDATE_SCREENSHOTS=1) under glossary-alerts-*.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.browser.conftest import Visitor

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREEN = "small_molecule_library_screen"


def _pipeline(site, kind: str) -> str:
    server, seed = site
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][kind]}")


def test_a_header_glossary_link_lands_on_its_entry_in_view(site, visitor, shots_dir):
    """Where the links lead (server HTML): tests/viewer/results/test_views.py."""
    page = visitor.page
    # The designed chain's report with its glossary links (a screenshot only).
    visitor.goto(f"{_pipeline(site, 'protein_design')}")
    page.locator("table.results tbody tr th a.rid").first.click()
    page.wait_for_load_state()
    page.locator(".protein-report").screenshot(
        path=str(shots_dir / "glossary-alerts-designed-chain.png"))
    # Following a header's "?" lands on its entry, in view.
    visitor.goto(_pipeline(site, "protein_design"))
    page.locator('table.results thead a.glossary-link[href$="#instability_index"]').click()
    page.wait_for_url(re.compile(r"/glossary#instability_index$"))
    entry = page.locator("article#instability_index")
    assert entry.is_visible() and "Guruprasad" in entry.inner_text()
    assert "> 40" in entry.inner_text()
    assert entry.evaluate("e => { const r = e.getBoundingClientRect();"
                          " return r.top >= 0 && r.top < innerHeight; }")
    page.screenshot(path=str(shots_dir / "glossary-alerts-instability-entry.png"))
    page.locator("#section-liability").scroll_into_view_if_needed()
    page.locator("section[aria-labelledby='section-liability']").screenshot(
        path=str(shots_dir / "glossary-alerts-liabilities.png"))
    page.locator("section[aria-labelledby='section-chem_filter']").screenshot(
        path=str(shots_dir / "glossary-alerts-chem-filters.png"))
    assert not visitor.errors, visitor.errors


def test_a_bad_similar_to_is_a_visible_inline_error(site, browser, shots_dir):
    visitor = Visitor(browser, allow=("status of 400",))
    page = visitor.page
    bad = "C1CC(=O"
    visitor.goto(f"{_pipeline(site, SCREEN)}?similar_to={quote(bad)}&sort=-similarity",
                 status=400)
    field = page.locator("#f-similar")
    assert field.is_visible() and field.input_value() == bad
    # Its text, aria-invalid and the rest of the page: tests/viewer/results/test_views.py.
    error = page.locator("#f-similar-error")
    assert error.is_visible() and "neither a result id" in error.inner_text()
    page.locator("details.explore-filters").screenshot(
        path=str(shots_dir / "glossary-alerts-similar-error.png"))
    page.screenshot(path=str(shots_dir / "glossary-alerts-similar-error-page.png"))
    assert not visitor.errors, visitor.errors
    visitor.close()
