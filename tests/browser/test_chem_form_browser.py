"""The results page's chemistry form and what pages say about their link, in Chromium
through gunicorn over the seeded demo (issue 19 items 5 and 9).

Item 5: a SMARTS RDKit cannot read (``COOH``) typed into the form comes back on the
results page with the error beside the field and ``COOH`` still in it; the carboxylic-acid
quick filter finds the library's acids and none of its esters; ``C(=O)O`` says it also
matches esters and switches to acids in one click. Item 9: the footer of a public link's
page, of an email-mode link's page (signed in through real SMTP) and of the 404 page; no
"Copy embed code" on the email-mode page. Screenshots go to /tmp/shots/chemistry-form.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdkit import Chem
from rdkit.rdBase import BlockLogs

from tests.browser.conftest import DESKTOP, PHONE, Visitor, api_records, seeded_site_env
from tests.signin.conftest import parse_mail, smtp_server
from tests.support.servers import start_gunicorn, stop_gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIND = "small_molecule_library_screen"
SHOTS = Path("/tmp/shots/chemistry-form")
ACID = Chem.MolFromSmarts("[CX3](=O)[OX2H1,OX1-]")
ESTER = Chem.MolFromSmarts("[#6][CX3](=O)[OX2][#6]")
PUBLIC = "Shared through a public link: anyone with this address can see it"
EMAIL = "Shared with specific people: sign-in required"


@pytest.fixture(scope="module")
def inbox():
    """A real SMTP server on loopback: the email-mode link's sign-in."""
    with smtp_server() as box:
        yield box


@pytest.fixture(scope="module")
def site(tmp_path_factory, inbox):
    """Gunicorn over a seeded demo, its sign-in mail going to ``inbox``."""
    tmp = tmp_path_factory.mktemp("chem-form-browser")
    env, seed = seeded_site_env(tmp)
    server = start_gunicorn({**env, "FLASK_MAIL_SERVER": "127.0.0.1",
                             "FLASK_MAIL_PORT": str(inbox.port)}, tmp)
    yield server, seed
    stop_gunicorn(server)


@pytest.fixture
def visitor(browser):
    """A desktop visitor; a 400 or 404 answered on purpose is no console error."""
    v = Visitor(browser, allow=("status of 400", "status of 404"))
    yield v
    v.close()
    assert v.errors == []


def _has(smiles: str, pattern) -> bool:
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles or "")
    return mol is not None and mol.HasSubstructMatch(pattern)


def _results_url(site) -> str:
    server, seed = site
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")


def _shown_ids(page) -> set[str]:
    return set(page.eval_on_selector_all("table.results tbody tr",
                                         "rows => rows.map(r => r.dataset.resultId)"))


def _open_filters(page) -> None:
    details = page.locator("details.explore-filters")
    if details.get_attribute("open") is None:
        details.locator("summary").click()


def test_typing_cooh_shows_the_error_beside_the_filled_form(site, visitor):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = visitor.page
    visitor.goto(_results_url(site) + "?limit=100")
    _open_filters(page)
    page.fill("#f-smarts", "COOH")
    page.select_option("#f-warnings", "none")
    with page.expect_navigation() as answer:
        page.click("details.explore-filters button[type=submit]")
    assert answer.value.status == 400
    assert page.locator("h1").count() == 1 and page.locator("#results-table").count() == 1
    field = page.locator("#f-smarts")
    assert field.input_value() == "COOH"
    assert page.input_value("#f-warnings") == "none"  # every other value kept
    assert field.get_attribute("aria-invalid") == "true"
    # The field has the focus (the page scrolls to it), its error read with it.
    assert page.evaluate("() => document.activeElement.id") == "f-smarts"
    described = field.get_attribute("aria-describedby").split()
    error = page.locator(f"#{described[0]}")
    assert error.is_visible() and "COOH" in error.inner_text()
    assert "not a SMARTS or a SMILES" in error.inner_text()
    # The error sits beside the field: right below it, in the same form.
    field_box, error_box = field.bounding_box(), error.bounding_box()
    assert 0 <= error_box["y"] - (field_box["y"] + field_box["height"]) < 40
    field.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "smarts-error-desktop.png"), full_page=False)
    page.set_viewport_size(PHONE)
    page.locator("#f-smarts").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "smarts-error-phone.png"), full_page=False)
    page.set_viewport_size(DESKTOP)
    # The table is the view without the bad filter: the warnings filter still holds.
    server, seed = site
    clean = {r["id"] for r in api_records(server, seed, KIND) if not r.get("warnings")}
    assert _shown_ids(page) == clean
    # Back and forward keep the typed value (it is in the page's own address).
    page.go_back()
    page.go_forward()
    assert page.locator("#f-smarts").input_value() == "COOH"


def test_the_acid_preset_finds_acids_not_esters_and_the_ester_note(site, visitor):
    server, seed = site
    records = api_records(server, seed, KIND)
    acids = {r["id"] for r in records if _has(r.get("smiles"), ACID)}
    esters = {r["id"] for r in records if _has(r.get("smiles"), ESTER)
              and not _has(r.get("smiles"), ACID)}
    assert acids and esters
    page = visitor.page
    visitor.goto(_results_url(site) + "?limit=100&smarts=C(%3DO)O")
    shown = _shown_ids(page)
    assert esters <= shown and acids <= shown  # the plain pattern finds both
    note = page.locator("p.smarts-note")
    assert "also matches esters" in note.inner_text()
    note.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "ester-note-desktop.png"))
    note.locator("a[data-preset=carboxylic_acid]").click()
    page.wait_for_load_state()
    assert _shown_ids(page) == acids
    assert page.locator("p.smarts-note").count() == 0
    preset = page.locator(".chem-presets a[data-preset=carboxylic_acid]")
    assert preset.get_attribute("aria-current") == "true"
    # From a plain page the preset link alone does it (no JavaScript needed).
    visitor.goto(_results_url(site) + "?limit=100")
    _open_filters(page)
    page.locator(".chem-presets a[data-preset=carboxylic_acid]").click()
    page.wait_for_load_state()
    assert _shown_ids(page) == acids
    assert page.locator("#f-smarts").input_value() == "[CX3](=O)[OX2H1,OX1-]"


def _footer(page) -> str:
    footer = page.locator("footer.site-footer")
    return " ".join(footer.inner_text().split()) if footer.count() else ""


def test_the_footer_says_what_is_true_of_each_link(site, inbox, visitor):
    server, seed = site
    page = visitor.page
    visitor.goto(f"{server.url}/share/{seed['share_links']['public']['id']}")
    assert PUBLIC in _footer(page)
    assert page.get_by_role("button", name="Copy embed code").count() == 1
    visitor.goto(f"{server.url}/share/sl_thislinkdoesnotexistatallreally", status=404)
    assert _footer(page) == "" and "private link" not in page.inner_text("body")
    # The email-mode link: sign in with the code from the real message.
    link = seed["share_links"]["email"]
    url = f"{server.url}/share/{link['id']}"
    address = link["allowed_emails"][0]
    page.goto(url)
    page.wait_for_selector("input[type=email]")
    assert EMAIL in _footer(page)
    sent = len(inbox.to(address))
    page.fill("input[type=email]", address)
    page.click("button[type=submit]")
    page.wait_for_selector("input[name=code]")
    mail = parse_mail(inbox.wait_for(address, sent + 1))
    page.fill("input[name=code]", mail.code)
    page.click("button[type=submit]")
    page.wait_for_url(url)
    assert EMAIL in _footer(page) and "public link" not in page.inner_text("body")
    assert page.get_by_role("button", name="Copy embed code").count() == 0
    assert page.locator("[data-embed-private]").is_visible()
    page.screenshot(path=str(SHOTS / "email-link-footer-desktop.png"), full_page=True)
