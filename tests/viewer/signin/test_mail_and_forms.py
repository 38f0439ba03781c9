"""Mail delivery (login, failure, development log), CSRF, safe redirects and cookies."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from aiosmtpd.smtp import AuthResult

from app.viewer.signin import navigation
from tests.support.servers import free_port
from tests.support.signin import (
    LISTED,
    ask_for_message,
    csrf_token,
    parse_mail,
    smtp_server,
    submit_code,
)


def test_smtp_login_is_used_when_configured(app, client, email_link):
    seen = []

    def authenticator(server, session, envelope, mechanism, auth_data):
        seen.append((auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.login == b"mailer")

    with smtp_server(authenticator=authenticator, auth_require_tls=False) as inbox:
        app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=inbox.port,
                          MAIL_USERNAME="mailer", MAIL_PASSWORD="s3cret")
        assert ask_for_message(client, email_link, LISTED).status_code == 302
        assert seen == [(b"mailer", b"s3cret")]
        assert len(inbox.to(LISTED)) == 1


@pytest.mark.slow
def test_a_failed_send_asks_to_try_later_and_is_logged(app, client, email_link, caplog):
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=free_port(), MAIL_TIMEOUT=2)
    with caplog.at_level(logging.ERROR):
        response = ask_for_message(client, email_link, LISTED)
    assert response.status_code == 503
    assert "try again in a few minutes" in response.get_data(as_text=True)
    assert any("could not be sent" in r.getMessage() for r in caplog.records)
    # Nothing is pending: the code page sends the visitor back to ask again.
    assert client.get(email_link.path("/sign-in/code")).status_code == 302


def test_without_smtp_the_code_is_logged_and_works(app, client, email_link, caplog):
    assert not app.config.get("MAIL_SERVER")
    with caplog.at_level(logging.WARNING, logger="app.viewer.signin.mailer"):
        assert ask_for_message(client, email_link, LISTED).status_code == 302
    lines = [r.getMessage() for r in caplog.records if "not sent" in r.getMessage()]
    assert len(lines) == 1 and email_link.id not in lines[0]
    code = lines[0].split("Its code is ")[1].split(" ")[0]
    assert submit_code(client, email_link, code).status_code == 302
    assert client.get(email_link.path()).status_code == 200


def test_every_form_needs_its_csrf_token(mail_app, client, smtp, email_link):
    client.get(email_link.path("/sign-in"))
    for path, form in ((email_link.path("/sign-in"), {"email": LISTED}),
                       (email_link.path("/sign-in/code"), {"code": "ABCD-EFGH"}),
                       (email_link.path("/sign-out"), {})):
        response = client.post(path, data=form)
        assert response.status_code == 400, path
        assert "form has expired" in response.get_data(as_text=True)
        forged = client.post(path, data={**form, "csrf_token": "forged"})
        assert forged.status_code == 400, path
    assert smtp.messages == []


def test_the_json_api_is_not_subject_to_csrf(client, org, email_link):
    expires = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    client.get(email_link.path("/sign-in"))  # a session with a CSRF token exists
    response = client.post("/compute/v1/share-links", headers=org.headers, json={
        "expires_at": expires, "pipeline_ids": [email_link.pipeline_id]})
    assert response.status_code == 200, response.data


@pytest.mark.parametrize("candidate", [
    "https://evil.example/share/LINK", "//evil.example/share/LINK", "/\\evil.example",
    "/share/OTHER", "/share/LINKX", "/share/LINK/../OTHER", "/share/LINK//x",
    "/share/LINK/sign-in", "javascript:alert(1)", "/share/LINK/x\r\nSet-Cookie: a=b",
    "/compute/v1/share/LINK", "", None, "/share/LINK/" + "a" * 3000,
])
def test_next_never_leaves_the_link(app, candidate):
    with app.test_request_context("/"):
        if candidate:
            candidate = candidate.replace("LINK", "sl_abc")
        assert navigation.safe_next("sl_abc", candidate) == "/share/sl_abc"


@pytest.mark.parametrize("candidate", [
    "/share/sl_abc", "/share/sl_abc/pipelines/pl_1?limit=50&after_id=res_2",
    "/share/sl_abc/pipelines/pl_1/results/res_1",
])
def test_next_keeps_pages_of_the_same_link(app, candidate):
    with app.test_request_context("/"):
        assert navigation.safe_next("sl_abc", candidate) == candidate
    with app.test_request_context("/?embed=1"):
        assert navigation.safe_next("sl_abc", candidate).endswith("embed=1")


def _session_cookie(response) -> str:
    return next(v for v in response.headers.getlist("Set-Cookie") if v.startswith("session="))


def test_session_cookie_is_httponly_lax_and_partitioned_in_frames(app, client, email_link):
    top = _session_cookie(client.get(email_link.path("/sign-in")))
    assert "HttpOnly" in top and "SameSite=Lax" in top
    assert "Secure" not in top and "Partitioned" not in top
    framed = _session_cookie(app.test_client().get(email_link.path("/sign-in?embed=1")))
    for attribute in ("HttpOnly", "SameSite=None", "Secure", "Partitioned"):
        assert attribute in framed


def test_session_cookie_is_secure_under_https(db_url, tmp_path, org):
    from app import create_app

    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "k",
                      "PUBLIC_URL": "https://share.example"},
                     instance_path=str(tmp_path / "instance"))
    assert app.config["SESSION_COOKIE_SECURE"] is True


def test_embedded_sign_in_offers_a_new_tab_and_keeps_embed(mail_app, client, smtp, email_link):
    page = client.get(email_link.path("/sign-in?embed=1"))
    html = page.get_data(as_text=True)
    assert 'target="_blank"' in html and 'rel="noopener' in html
    assert f'action="/share/{email_link.id}/sign-in?embed=1"' in html
    posted = client.post(email_link.path("/sign-in?embed=1"),
                         data={"csrf_token": csrf_token(html), "email": LISTED})
    assert posted.headers["Location"].endswith("/sign-in/code?embed=1")
    code = parse_mail(smtp.wait_for(LISTED)).code
    page = client.get(posted.headers["Location"])
    done = client.post(posted.headers["Location"],
                       data={"csrf_token": csrf_token(page.get_data(as_text=True)),
                             "code": code})
    assert done.headers["Location"] == email_link.path("?embed=1")
