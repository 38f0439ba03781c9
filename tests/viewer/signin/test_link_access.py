"""What a page says about its link (issue 19 item 9): the footer says how the link is
shared (public, or specific people with sign-in), error pages say nothing about a link,
and only a public link's pages offer "Copy embed code"."""

from __future__ import annotations

import re
import time

import pytest

from app.platform.db import get_engine
from app.viewer.access import identity
from tests.support import factories

PUBLIC = "Shared through a public link: anyone with this address can see it"
EMAIL = "Shared with specific people: sign-in required"
READER = "reader@example.org"


def _footer(response) -> str:
    found = re.search(r'<footer class="site-footer">(.*?)</footer>',
                      response.get_data(as_text=True), re.S)
    return " ".join(found.group(1).split()) if found else ""


def _sign_in(client, address: str = READER) -> None:
    with client.session_transaction() as session:
        session[identity.SESSION_EMAIL_KEY] = address
        session["verified_at"] = int(time.time())


@pytest.fixture
def email_link(app, org):
    """An email-mode link over a small-molecule pipeline, for READER."""
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, "small_molecule_design", 3,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id], access_mode="email",
                               allowed_emails=[READER])
    return f"/share/{link.id}", pipeline_id


def test_a_public_links_pages_say_public_and_offer_the_embed_code(client, shared):
    for url in (shared.url(), shared.url(f"/pipelines/{shared.pipelines['protein_design']}")):
        page = client.get(url)
        assert PUBLIC in _footer(page) and "private link" not in page.get_data(as_text=True)
        assert "Copy embed code" in page.get_data(as_text=True)
    # A visitor who signed in elsewhere still reads a public link as public.
    _sign_in(client)
    page = client.get(shared.url())
    assert PUBLIC in _footer(page) and "Copy embed code" in page.get_data(as_text=True)


def test_an_email_mode_links_pages_say_sign_in_and_offer_no_embed_code(client, email_link):
    base, pipeline_id = email_link
    sign_in_page = client.get(base, follow_redirects=True)
    assert "/sign-in" in sign_in_page.request.path
    assert EMAIL in _footer(sign_in_page)
    _sign_in(client)
    for url in (base, f"{base}/pipelines/{pipeline_id}"):
        page = client.get(url)
        assert page.status_code == 200
        text = page.get_data(as_text=True)
        assert EMAIL in _footer(page) and "public link" not in text
        assert "Copy embed code" not in text and "<iframe" not in text
        assert "data-embed-private" in text and "shared with specific people" in text
    # Embedded (someone framed it anyway), the page still opens in full.
    embedded = client.get(f"{base}?embed=1").get_data(as_text=True)
    assert "Open full view" in embedded and "Copy embed code" not in embedded


def test_error_pages_say_nothing_about_a_link(client, shared):
    for url in ("/share/sl_unknownunknownunknownunknown1", "/nothing-here",
                shared.url("/pipelines/pl_unknown")):
        page = client.get(url)
        assert page.status_code == 404
        text = page.get_data(as_text=True)
        assert _footer(page) == "" and "private link" not in text
        assert PUBLIC not in text and EMAIL not in text
