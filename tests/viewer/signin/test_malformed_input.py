"""Input that used to crash sign-in with a 500 (issue 7, fault 5, the sign-in part).

A non-Latin-1 link id is the shared 404; an RFC 2047 encoded-word address is the 400 form
before anything is stored; a punycode (or Unicode) domain reaches an SMTP server without
SMTPUTF8 in its ASCII form; a non-ASCII local part there is a clear 400.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.viewer.store import get_engine
from app.viewer.store.schema import signin_requests
from tests.support.error_pages import without_reference
from tests.support.signin import (
    ask_for_message,
    csrf_token,
    parse_mail,
    smtp_server,
    submit_code,
)

EMOJI_ID = "%F0%9F%92%A9"
# Every sign-in route that takes a link id, and whether it takes POST.
SIGN_IN_PATHS = [("/sign-in", True), ("/sign-in/code", True),
                 ("/sign-in/link/" + "x" * 43, True), ("/sign-in/oidc/google", False),
                 ("/sign-out", True)]


def _stored(app) -> int:
    with get_engine(app).connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(signin_requests)).scalar()


@pytest.mark.parametrize(("suffix", "posts"), SIGN_IN_PATHS)
def test_a_non_latin1_link_id_is_the_shared_404(client, suffix, posts):
    shared = without_reference(client.get("/share/sl_no_such_link").get_data(as_text=True))
    methods = [client.get, client.post] if posts else [client.get]
    if suffix == "/sign-out":
        methods = [client.post]
    for method in methods:
        response = method(f"/share/{EMOJI_ID}{suffix}")
        assert response.status_code == 404
        assert without_reference(response.get_data(as_text=True)) == shared


def test_an_encoded_word_address_is_refused_before_anything_is_stored(
    mail_app, client, smtp, email_link
):
    for address in ("=?utf-8?q?ada=0d=0abcc=3a_eve=40evil.example?=@example.com",
                    "=?utf-8?q?ada?=@example.com"):
        response = ask_for_message(client, email_link, address)
        assert response.status_code == 400
        assert "Enter a complete e-mail address" in response.get_data(as_text=True)
    assert _stored(mail_app) == 0
    assert smtp.messages == []


@pytest.fixture
def ascii_smtp(mail_app):
    """An SMTP server that does not offer SMTPUTF8; the app sends through it."""
    with smtp_server(enable_SMTPUTF8=False) as inbox:
        mail_app.config["MAIL_PORT"] = inbox.port
        yield inbox


@pytest.mark.parametrize("typed", ["ada@xn--bcher-kva.example", "ada@bücher.example"])
def test_an_idn_domain_goes_out_in_ascii_to_a_server_without_smtputf8(
    mail_app, client, ascii_smtp, email_link, typed
):
    response = ask_for_message(client, email_link, typed)
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    mail = parse_mail(ascii_smtp.wait_for("ada@xn--bcher-kva.example"))
    # The visitor reads the address as they know it; the session proves that form.
    assert "ada@bücher.example" in mail.text
    assert submit_code(client, email_link, mail.code).status_code == 302


def test_a_non_ascii_local_part_without_smtputf8_is_a_clear_400(
    mail_app, client, ascii_smtp, email_link
):
    response = ask_for_message(client, email_link, "adä@example.org")
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert "cannot send a message to this address" in text
    assert 'name="email"' in text and csrf_token(text)
    assert ascii_smtp.messages == []
