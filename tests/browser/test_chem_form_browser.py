"""The results page's chemistry form on screen, in Chromium through gunicorn over the seeded
demo (issue 19 item 5): a SMARTS RDKit cannot read (``COOH``) typed into the form comes
back with the focus in its field, its error shown right below it, at desktop and phone
width; back and forward keep the typed value. The ester note of ``C(=O)O`` is shot.
Screenshots go to /tmp/shots/chemistry-form. What the pages say (the values kept, the
error's text and wiring, the view without the bad filter, the acid preset's exact set,
each link's footer, an email-mode link's included after a real sign-in) is server HTML:
tests/viewer/results/test_chem_form.py and tests/viewer/pages/test_views.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"
SHOTS = Path("/tmp/shots/chemistry-form")


@pytest.fixture
def visitor(browser):
    """A desktop visitor; a 400 answered on purpose is no console error."""
    v = Visitor(browser, allow=("status of 400",))
    yield v
    v.close()
    assert v.errors == []


def _results_url(site) -> str:
    server, seed = site
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")


def _open_filters(page) -> None:
    details = page.locator("details.explore-filters")
    if details.get_attribute("open") is None:
        details.locator("summary").click()


def test_typing_cooh_shows_the_error_beside_the_focused_field(site, visitor):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = visitor.page
    visitor.goto(_results_url(site) + "?limit=100")
    _open_filters(page)
    page.fill("#f-smarts", "COOH")
    page.select_option("#f-warnings", "none")
    with page.expect_navigation() as answer:
        page.click("details.explore-filters button[type=submit]")
    assert answer.value.status == 400
    field = page.locator("#f-smarts")
    assert field.input_value() == "COOH"
    # The field has the focus (the page scrolls to it), its error read with it.
    assert page.evaluate("() => document.activeElement.id") == "f-smarts"
    described = field.get_attribute("aria-describedby").split()
    error = page.locator(f"#{described[0]}")
    assert error.is_visible() and "COOH" in error.inner_text()
    # The error sits beside the field: right below it.
    field_box, error_box = field.bounding_box(), error.bounding_box()
    assert 0 <= error_box["y"] - (field_box["y"] + field_box["height"]) < 40
    field.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "smarts-error-desktop.png"), full_page=False)
    page.set_viewport_size(PHONE)
    page.locator("#f-smarts").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "smarts-error-phone.png"), full_page=False)
    page.set_viewport_size(DESKTOP)
    # Back and forward keep the typed value (it is in the page's own address).
    page.go_back()
    page.go_forward()
    assert page.locator("#f-smarts").input_value() == "COOH"


def test_the_ester_note_on_screen(site, visitor):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = visitor.page
    visitor.goto(_results_url(site) + "?limit=100&smarts=C(%3DO)O")
    note = page.locator("p.smarts-note")
    note.scroll_into_view_if_needed()
    assert note.is_visible()
    page.screenshot(path=str(SHOTS / "ester-note-desktop.png"))
