"""The Host header never writes the sign-in mail (issue 22).

A sign-in request sent with ``Host: evil.example`` must not mail the genuine reader a link
to evil.example beside the code: a phishing page there could finish the sign-in. Real SMTP
(``smtp``); the requests carry the hostile Host as a browser on that site would.
"""

from __future__ import annotations

import logging

from tests.support.signin import LISTED, csrf_token, parse_mail

EVIL = "http://evil.example"


def _ask_through(client, link, base_url: str):
    """Open the sign-in form and submit LISTED, both requests with ``base_url``'s Host."""
    page = client.get(link.path("/sign-in"), base_url=base_url)
    assert page.status_code == 200, page.data[:300]
    return client.post(link.path("/sign-in"), base_url=base_url,
                       data={"csrf_token": csrf_token(page.get_data(as_text=True)),
                             "email": LISTED})


def test_without_public_url_no_mail_is_sent_and_the_log_says_why(mail_app, client, smtp,
                                                                 email_link, caplog):
    mail_app.config["PUBLIC_URL"] = None
    with caplog.at_level(logging.ERROR):
        response = _ask_through(client, email_link, EVIL)
    assert response.status_code == 503
    assert "not set up" in response.get_data(as_text=True)
    assert "evil.example" not in response.get_data(as_text=True)
    assert smtp.to(LISTED) == []
    assert any("FLASK_PUBLIC_URL" in record.getMessage() for record in caplog.records)


def test_with_public_url_the_link_names_it_whatever_the_host(mail_app, client, smtp,
                                                             email_link):
    response = _ask_through(client, email_link, EVIL)
    assert response.status_code == 302
    mail = parse_mail(smtp.wait_for(LISTED))
    assert mail.link.startswith(f"http://viewer.test/share/{email_link.id}/sign-in/link/")
    assert "evil.example" not in mail.text and "evil.example" not in mail.html


def test_trusted_hosts_answer_400_to_another_host_and_mail_from_their_own(mail_app, client,
                                                                          smtp, email_link):
    mail_app.config.update(PUBLIC_URL=None, TRUSTED_HOSTS=["share.example.org"])
    assert client.get(email_link.path("/sign-in"), base_url=EVIL).status_code == 400
    assert client.post(email_link.path("/sign-in"), base_url=EVIL,
                       data={"email": LISTED}).status_code == 400
    assert smtp.to(LISTED) == []
    response = _ask_through(client, email_link, "http://share.example.org")
    assert response.status_code == 302
    link = parse_mail(smtp.wait_for(LISTED)).link
    assert link.startswith(f"http://share.example.org/share/{email_link.id}/sign-in/link/")
