"""Sign-in in a real browser (Chromium through Playwright) against gunicorn and real SMTP.

One gunicorn server over a database filled by ``flask --app app seed-demo --json``, with
sign-in mail going to an aiosmtpd server on loopback. Also writes the screenshots
``docs/signin-page.png``, ``docs/signin-message.png`` and ``docs/signin-no-access.png``.
"""

from __future__ import annotations

import http.server
import threading

import pytest

from tests.browser.conftest import Visitor, seeded_site_env
from tests.support.servers import start_gunicorn, stop_gunicorn
from tests.support.signin import Inbox, parse_mail, smtp_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")



@pytest.fixture(scope="module")
def inbox():
    """A real SMTP server on loopback for the whole module."""
    with smtp_server() as box:
        yield box


@pytest.fixture(scope="module")
def site(tmp_path_factory, inbox):
    """Gunicorn over a seeded demo database; yields (server, seed summary)."""
    tmp = tmp_path_factory.mktemp("signin-browser")
    env, seed = seeded_site_env(tmp)
    server = start_gunicorn({**env, "FLASK_MAIL_SERVER": "127.0.0.1",
                             "FLASK_MAIL_PORT": str(inbox.port),
                             "FLASK_PRODUCT_NAME": "Share Viewer"}, tmp)
    yield server, seed
    stop_gunicorn(server)


# Pages that answer 400/403 on purpose (wrong code, no access) are logged by Chromium as
# failed loads; anything else (a CSP refusal, a missing file) counts as an error.
VIEWPORT = {"width": 1100, "height": 760}
EXPECTED_LOADS = ("status of 400", "status of 403")


@pytest.fixture
def visitor(browser):
    """A fresh browser context."""
    v = Visitor(browser, VIEWPORT, EXPECTED_LOADS)
    yield v
    v.close()


def email_link(site) -> tuple[str, dict]:
    """Return the email-mode link's URL on the live server and its seed entry."""
    server, seed = site
    link = seed["share_links"]["email"]
    return f"{server.url}/share/{link['id']}", link


def ask(visitor: Visitor, inbox: Inbox, url: str, address: str):
    """Open ``url``, ask the sign-in page for a message to ``address``; return that message."""
    count = len(inbox.to(address))
    page = visitor.page
    page.goto(url)
    page.wait_for_selector("input[type=email]")
    page.fill("input[type=email]", address)
    page.click("button[type=submit]")
    page.wait_for_selector("input[name=code]")
    return parse_mail(inbox.wait_for(address, count + 1))


def test_sign_in_with_the_code_lands_on_the_page_asked_for(site, inbox, visitor, shots_dir):
    url, link = email_link(site)
    _server, seed = site
    target = f"{url}/pipelines/{seed['pipelines']['small_molecule_design']}"
    address = link["allowed_emails"][0]
    visitor.page.goto(target)
    assert "/sign-in" in visitor.page.url
    assert "Sign in to see these results" in visitor.page.inner_text("h1")
    visitor.page.screenshot(path=str(shots_dir / "signin-page.png"))
    mail = ask(visitor, inbox, target, address)
    assert address in visitor.page.inner_text("main")
    visitor.page.fill("input[name=code]", mail.code)
    visitor.page.click("button[type=submit]")
    visitor.page.wait_for_url(target)
    assert visitor.page.locator("table").count() >= 1
    assert visitor.errors == []


def test_sign_in_with_the_link_in_the_same_browser(site, inbox, visitor):
    url, link = email_link(site)
    address = link["allowed_emails"][1]
    mail = ask(visitor, inbox, url, address)
    visitor.page.goto(mail.link)
    # signin.js submits the confirmation form by itself.
    visitor.page.wait_for_url(url)
    assert "protein" in visitor.page.inner_text("main").lower()
    assert visitor.errors == []


def test_the_link_in_another_browser_asks_for_the_code(site, inbox, browser, visitor):
    url, link = email_link(site)
    address = link["allowed_emails"][0]
    mail = ask(visitor, inbox, url, address)
    other = Visitor(browser, VIEWPORT, EXPECTED_LOADS)
    try:
        other.page.goto(mail.link)
        assert "different browser" in other.page.inner_text("main")
        wrong = "AAAA-AAAA" if mail.code != "AAAA-AAAA" else "BBBB-BBBB"
        other.page.fill("input[name=code]", wrong)
        other.page.click("button[type=submit]")
        assert "not right" in other.page.inner_text("[role=alert]")
        other.page.fill("input[name=code]", mail.code)
        other.page.click("button[type=submit]")
        other.page.wait_for_url(url)
        # The link is used up: the first browser now gets a clear message.
        visitor.page.goto(mail.link)
        assert "already been used" in visitor.page.inner_text("main")
        assert other.errors == [] and visitor.errors == []
    finally:
        other.close()


def test_an_unlisted_address_reaches_the_no_access_page_and_no_content(
    site, inbox, visitor, shots_dir
):
    url, _link = email_link(site)
    _server, seed = site
    address = "mallory@example.net"
    mail = ask(visitor, inbox, url, address)
    visitor.page.fill("input[name=code]", mail.code)
    visitor.page.click("button[type=submit]")
    visitor.page.wait_for_selector("text=does not have access")
    html = visitor.page.content()
    assert address in html
    for pipeline_id in seed["pipelines"].values():
        assert pipeline_id not in html
    assert "<table" not in html
    visitor.page.screenshot(path=str(shots_dir / "signin-no-access.png"))
    visitor.page.click("text=Use another address")
    visitor.page.wait_for_selector("input[type=email]")
    assert visitor.errors == []


def test_screenshot_of_the_message(site, inbox, visitor, shots_dir):
    url, link = email_link(site)
    address = link["allowed_emails"][1]
    mail = ask(visitor, inbox, url, address)
    page = visitor.context.new_page()
    page.set_viewport_size({"width": 640, "height": 620})
    page.set_content(mail.html)
    assert mail.code in page.inner_text("body")
    page.screenshot(path=str(shots_dir / "signin-message.png"), full_page=True)


class _FramePage(http.server.BaseHTTPRequestHandler):
    """Serves one page that frames the viewer (another origin)."""

    target = ""

    def do_GET(self):  # the name http.server calls
        body = (f'<!doctype html><title>Lab wiki</title><h1>Lab wiki</h1>'
                f'<iframe id="viewer" src="{self.target}" width="900" height="600"></iframe>')
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        """Stay quiet."""


def test_signing_in_inside_an_iframe_of_another_site(site, inbox, visitor):
    url, link = email_link(site)
    address = link["allowed_emails"][0]
    handler = type("Frame", (_FramePage,), {"target": f"{url}?embed=1"})
    embedder = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=embedder.serve_forever, daemon=True).start()
    try:
        # localhost and 127.0.0.1 are different sites: the viewer is third-party here.
        visitor.page.goto(f"http://localhost:{embedder.server_port}/")
        frame = visitor.page.frame_locator("#viewer")
        frame.locator("input[type=email]").wait_for()
        new_tab = frame.locator("a[target=_blank]", has_text="Open in a new tab")
        assert new_tab.get_attribute("rel").startswith("noopener")
        count = len(inbox.to(address))
        frame.locator("input[type=email]").fill(address)
        frame.locator("button[type=submit]").click()
        frame.locator("input[name=code]").wait_for()
        mail = parse_mail(inbox.wait_for(address, count + 1))
        frame.locator("input[name=code]").fill(mail.code)
        frame.locator("button[type=submit]").click()
        # Partitioned (CHIPS) cookie: the session survives inside the frame.
        frame.locator("table, .cards").first.wait_for()
        cookies = visitor.context.cookies([url])
        assert any(c.get("partitionKey") or c.get("sameSite") == "None" for c in cookies)
        assert visitor.errors == []
    finally:
        embedder.shutdown()
