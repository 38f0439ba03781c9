"""The e-mail sign-in flow against a real SMTP server: code, link, failures, sign-out."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from app.platform.timeutil import utcnow
from app.viewer.store import get_engine
from app.viewer.store.schema import signin_requests
from tests.support.signin import (
    ALSO_LISTED,
    LISTED,
    UNLISTED,
    ask_for_message,
    csrf_token,
    parse_mail,
    sign_in,
    submit_code,
)


def test_a_visitor_is_sent_to_sign_in_and_back_to_the_page_asked_for(
    mail_app, client, smtp, email_link
):
    page = email_link.path(f"/pipelines/{email_link.pipeline_id}")
    response = client.get(page)
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(email_link.path("/sign-in"))

    form = client.get(location)
    assert form.status_code == 200
    assert b'type="email"' in form.data
    posted = client.post(email_link.path("/sign-in"), data={
        "csrf_token": csrf_token(form.get_data(as_text=True)), "email": LISTED,
        "next": page,
    })
    assert posted.status_code == 302
    assert posted.headers["Location"] == email_link.path("/sign-in/code")

    mail = parse_mail(smtp.wait_for(LISTED))
    done = submit_code(client, email_link, mail.code)
    assert done.status_code == 302
    assert done.headers["Location"] == page
    results = client.get(page)
    assert results.status_code == 200
    assert email_link.result_ids[0].encode() in results.data


def test_the_message_has_text_and_html_parts_with_the_code_and_link(
    mail_app, client, smtp, email_link
):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    assert mail.message["From"] == "Results <results@lab.example>"
    assert "Lab Share" in mail.message["Subject"]
    assert mail.message.get_content_type() == "multipart/alternative"
    assert mail.code in mail.html and mail.code in mail.text
    assert mail.link in mail.html
    assert mail.link.startswith(f"http://viewer.test/share/{email_link.id}/sign-in/link/")
    assert "10 minutes" in mail.text


def test_the_sign_in_link_works_in_the_browser_that_asked(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED, next_path=email_link.path(
        f"/pipelines/{email_link.pipeline_id}"))
    mail = parse_mail(smtp.wait_for(LISTED))
    landing = client.get(mail.link_path)
    # GET never signs in (mail scanners fetch links): it shows a confirmation form.
    assert landing.status_code == 200
    assert b"data-signin-autosubmit" in landing.data
    assert client.get(email_link.path()).status_code == 302
    done = client.post(mail.link_path,
                       data={"csrf_token": csrf_token(landing.get_data(as_text=True))})
    assert done.status_code == 302
    assert done.headers["Location"] == email_link.path(f"/pipelines/{email_link.pipeline_id}")
    assert client.get(email_link.path()).status_code == 200


def test_the_link_in_another_browser_asks_for_the_code(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    other = mail_app.test_client()
    landing = other.get(mail.link_path)
    assert landing.status_code == 200
    text = landing.get_data(as_text=True)
    assert "different browser" in text and 'name="code"' in text
    assert LISTED not in text  # a leaked link alone does not reveal who it was for
    # The link alone is not enough there.
    refused = other.post(mail.link_path, data={"csrf_token": csrf_token(text)})
    assert refused.status_code == 400
    assert "not right" in refused.get_data(as_text=True)
    assert other.get(email_link.path()).status_code == 302
    done = other.post(mail.link_path, data={"csrf_token": csrf_token(text), "code": mail.code})
    assert done.status_code == 302
    assert other.get(email_link.path()).status_code == 200


def test_the_same_answer_whether_or_not_the_address_is_listed(
    mail_app, client, smtp, email_link
):
    answers = []
    for address in (LISTED, UNLISTED):
        browser = mail_app.test_client()
        posted = ask_for_message(browser, email_link, address)
        page = browser.get(posted.headers["Location"])
        answers.append((posted.status_code, posted.headers["Location"], page.status_code,
                        page.get_data(as_text=True).replace(address, "ADDRESS")
                        .replace(csrf_token(page.get_data(as_text=True)), "TOKEN")))
        smtp.wait_for(address)
    assert answers[0] == answers[1]


def test_an_unlisted_address_ends_at_the_no_access_page_without_content(
    mail_app, client, smtp, email_link
):
    assert sign_in(client, smtp, email_link, UNLISTED).status_code == 302
    for path in ("", f"/pipelines/{email_link.pipeline_id}"):
        response = client.get(email_link.path(path))
        assert response.status_code == 403
        body = response.get_data(as_text=True)
        assert UNLISTED in body and "does not have access" in body
        assert email_link.pipeline_id not in body
        assert not any(result_id in body for result_id in email_link.result_ids)
        assert "protein" not in body.lower()
    # "Use another address": sign out, back to the sign-in page.
    page = client.get(email_link.path())
    out = client.post(email_link.path("/sign-out"),
                      data={"csrf_token": csrf_token(page.get_data(as_text=True))})
    assert out.status_code == 302
    assert out.headers["Location"].startswith(email_link.path("/sign-in"))
    assert sign_in(client, smtp, email_link, ALSO_LISTED).status_code == 302
    assert client.get(email_link.path()).status_code == 200


def test_a_wrong_code_says_so_and_five_lock_the_message(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    wrong = "AAAA-AAAA" if mail.code != "AAAA-AAAA" else "BBBB-BBBB"
    first = submit_code(client, email_link, wrong)
    assert first.status_code == 400
    assert "not right" in first.get_data(as_text=True)
    assert "4 more times" in first.get_data(as_text=True)
    for _ in range(4):
        last = submit_code(client, email_link, wrong)
    assert "Too many wrong codes" in last.get_data(as_text=True)
    after = submit_code(client, email_link, mail.code)
    assert after.status_code == 400
    assert "Too many wrong codes" in after.get_data(as_text=True)
    assert client.get(email_link.path()).status_code == 302


def test_codes_are_accepted_in_any_case_and_spacing(mail_app, client, smtp, email_link):
    assert b"I already have a code" not in client.get(email_link.path("/sign-in")).data
    ask_for_message(client, email_link, LISTED)
    code = parse_mail(smtp.wait_for(LISTED)).code
    # Back on the sign-in page, the pending code can still be typed.
    assert b"I already have a code" in client.get(email_link.path("/sign-in")).data
    assert submit_code(client, email_link, f" {code.lower().replace('-', ' ')} ").status_code == 302


def test_a_reused_code_or_link_is_refused_clearly(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    assert submit_code(client, email_link, mail.code).status_code == 302
    other = mail_app.test_client()
    landing = other.get(mail.link_path)
    assert landing.status_code == 400
    assert "already been used" in landing.get_data(as_text=True)
    # The browser that signed in is simply sent on.
    assert client.get(mail.link_path).status_code == 302


def test_an_expired_code_or_link_is_refused_clearly(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    with get_engine(mail_app).begin() as conn:
        conn.execute(signin_requests.update().values(
            expires_at=utcnow() - timedelta(minutes=1)))
    response = submit_code(client, email_link, mail.code)
    assert response.status_code == 400
    assert "expired" in response.get_data(as_text=True)
    landing = mail_app.test_client().get(mail.link_path)
    assert "expired" in landing.get_data(as_text=True)
    assert client.get(email_link.path()).status_code == 302


def test_a_made_up_link_or_one_for_another_share_is_not_valid(
    mail_app, client, smtp, email_link
):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    token = mail.link_path.rsplit("/", 1)[1]
    for path in (email_link.path("/sign-in/link/" + "x" * 43),
                 f"/share/{email_link.public_id}/sign-in/link/{token}"):
        response = client.get(path)
        assert response.status_code == 400
        assert "not valid" in response.get_data(as_text=True)


def test_only_hashes_are_stored(mail_app, client, smtp, email_link):
    ask_for_message(client, email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    with get_engine(mail_app).connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.select(signin_requests))]
    assert len(rows) == 1
    stored = " ".join(str(value) for value in rows[0].values())
    token = mail.link_path.rsplit("/", 1)[1]
    for secret in (token, mail.code, mail.code.replace("-", ""), email_link.id):
        assert secret not in stored


def test_a_bad_address_is_asked_again_and_nothing_is_sent(mail_app, client, smtp, email_link):
    for typed in ("not-an-address", "a@b", "x" * 250 + "@example.org", ""):
        response = ask_for_message(client, email_link, typed)
        assert response.status_code == 400
        assert "complete e-mail address" in response.get_data(as_text=True)
    assert smtp.messages == []


def test_no_message_for_unknown_or_public_links(mail_app, client, smtp, email_link):
    page = client.get(email_link.path("/sign-in"))
    token = csrf_token(page.get_data(as_text=True))
    unknown = client.post("/share/sl_made_up_link_id/sign-in",
                          data={"csrf_token": token, "email": LISTED})
    assert unknown.status_code == 404
    public = client.post(f"/share/{email_link.public_id}/sign-in",
                         data={"csrf_token": token, "email": LISTED})
    assert public.status_code == 302
    assert public.headers["Location"] == f"/share/{email_link.public_id}"
    assert client.get("/share/sl_made_up_link_id/sign-in").status_code == 404
    assert smtp.messages == []


def test_sign_out_forgets_the_address(mail_app, client, smtp, email_link):
    sign_in(client, smtp, email_link, LISTED)
    page = client.get(email_link.path())
    assert page.status_code == 200
    out = client.post(email_link.path("/sign-out"), data={
        "csrf_token": csrf_token(client.get(email_link.path("/sign-in")).get_data(as_text=True)),
        "then": "signed-out"})
    assert out.status_code == 302
    assert "You are signed out" in client.get(out.headers["Location"]).get_data(as_text=True)
    assert client.get(email_link.path()).status_code == 302
    # GET does not sign out.
    assert client.get(email_link.path("/sign-out")).status_code == 405


def test_viewer_pages_of_a_signed_in_visitor_offer_sign_out(mail_app, client, smtp, email_link):
    anonymous = client.get(email_link.path())
    assert "Sign out" not in anonymous.get_data(as_text=True)
    sign_in(client, smtp, email_link, LISTED)
    for embed in ("", "?embed=1"):
        html = client.get(email_link.path() + embed).get_data(as_text=True)
        assert f"Signed in as <strong>{LISTED}</strong>" in html
        assert "css/signin.css" in html
    page = client.get(email_link.path()).get_data(as_text=True)
    out = client.post(email_link.path("/sign-out"), data={"csrf_token": csrf_token(page)})
    assert out.status_code == 302
    assert client.get(email_link.path()).status_code == 302  # back to the sign-in page


def test_the_account_partial_shows_the_address_and_a_sign_out_form(mail_app, client, smtp,
                                                                   email_link):
    from flask import render_template_string

    template = '{% include "signin/_account.html" %}'
    with mail_app.test_request_context("/"):
        assert "Signed in" not in render_template_string(template, link_id=email_link.id)
    sign_in(client, smtp, email_link, LISTED)
    with client:
        client.get(email_link.path())
        html = render_template_string(template, link_id=email_link.id)
    assert LISTED in html
    assert f'action="/share/{email_link.id}/sign-out"' in html
    assert 'name="csrf_token"' in html


def test_a_refused_token_of_a_signed_in_visitor_is_logged(mail_app, client, smtp, email_link,
                                                          caplog):
    sign_in(client, smtp, email_link, LISTED)
    # The viewer now signs with a key the API does not know.
    from cryptography.hazmat.primitives.asymmetric import ed25519

    mail_app.extensions["jwt_private_key"] = ed25519.Ed25519PrivateKey.generate()
    mail_app.extensions.pop("jwt_kid", None)
    response = client.get(email_link.path())
    assert response.status_code == 302
    assert "/sign-in" in response.headers["Location"]
    assert any("JWT key configuration" in r.getMessage() for r in caplog.records)
