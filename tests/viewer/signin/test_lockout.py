"""Anyone holding an email-mode link cannot lock its listed readers out (issue 7, fault 2).

The probe's scenarios, with the default limits: 105 code POSTs from 5 client addresses,
then the real reader types the right code; 105 requests for made-up addresses, then the
real reader asks for a message; and an outsider who asks for a listed reader's messages
and burns their codes. Each time the reader gets in.
"""

from __future__ import annotations

import pytest

from tests.support.signin import (
    LISTED,
    ask_for_message,
    csrf_token,
    parse_mail,
    sign_in,
)

ATTACKERS = [f"198.51.100.{n}" for n in range(1, 6)]
READER = "203.0.113.10"


def _visitor(app, address: str):
    """Return a new browser of ``app`` coming from ``address``."""
    visitor = app.test_client()
    visitor.environ_base["REMOTE_ADDR"] = address
    return visitor


def _reads(client, link) -> bool:
    return client.get(link.path()).status_code == 200


@pytest.mark.slow
def test_105_code_posts_from_5_clients_leave_the_reader_able_to_sign_in(
    mail_app, smtp, email_link
):
    statuses = []
    for n in range(105):
        attacker = _visitor(mail_app, ATTACKERS[n % 5])
        token = csrf_token(attacker.get(email_link.path("/sign-in")).get_data(as_text=True))
        # Codes with no message asked for, and made-up sign-in links, alternately.
        path = "/sign-in/code" if n % 2 else "/sign-in/link/" + "x" * 43
        statuses.append(attacker.post(email_link.path(path), data={
            "csrf_token": token, "code": "AAAA-AAAA"}).status_code)

    reader = _visitor(mail_app, READER)
    done = sign_in(reader, smtp, email_link, LISTED)
    assert done.status_code == 302, done.get_data(as_text=True)[:300]
    assert _reads(reader, email_link)
    # 21 tries each is within one client's allowance (30 in 15 minutes): none was refused,
    # and none counted against the link.
    assert sorted(set(statuses)) == [302, 400]


@pytest.mark.slow
def test_105_requests_for_made_up_addresses_leave_the_reader_their_mail(
    mail_app, smtp, email_link
):
    statuses = [
        ask_for_message(_visitor(mail_app, ATTACKERS[n % 5]), email_link,
                        f"nobody{n}@junk.example").status_code
        for n in range(105)
    ]
    # Each client is held to its own allowance (20 an hour): 100 sent, 5 refused.
    assert statuses.count(302) == 100 and statuses.count(429) == 5

    reader = _visitor(mail_app, READER)
    assert ask_for_message(reader, email_link, LISTED).status_code == 302
    mail = parse_mail(smtp.wait_for(LISTED))
    page = reader.get(email_link.path("/sign-in/code"))
    done = reader.post(email_link.path("/sign-in/code"), data={
        "csrf_token": csrf_token(page.get_data(as_text=True)), "code": mail.code})
    assert done.status_code == 302
    assert _reads(reader, email_link)


@pytest.mark.slow
def test_one_client_cannot_use_up_the_links_allowance(mail_app, smtp, email_link):
    mail_app.config["SIGNIN_LIMIT_CLIENTS_PER_LINK"] = "3 per hour"
    attacker = _visitor(mail_app, ATTACKERS[0])
    for n in range(105):
        ask_for_message(attacker, email_link, f"nobody{n}@junk.example")
    assert len(smtp.messages) == 20
    reader = _visitor(mail_app, READER)
    assert ask_for_message(reader, email_link, LISTED).status_code == 302
    assert parse_mail(smtp.wait_for(LISTED)).code


@pytest.mark.slow
def test_an_outsider_burning_a_readers_messages_does_not_lock_the_reader_out(
    mail_app, smtp, email_link
):
    # The outsider asks for the listed reader's messages until the address is used up,
    # and types five wrong codes into each from their own browser.
    attacker = _visitor(mail_app, ATTACKERS[0])
    for count in range(1, 6):
        assert ask_for_message(attacker, email_link, LISTED).status_code == 302
        smtp.wait_for(LISTED, count)
        for _ in range(5):
            page = attacker.get(email_link.path("/sign-in/code"))
            attacker.post(email_link.path("/sign-in/code"), data={
                "csrf_token": csrf_token(page.get_data(as_text=True)), "code": "AAAA-AAAA"})
    assert ask_for_message(attacker, email_link, LISTED).status_code == 429

    # The reader cannot ask for a sixth message now, and the page says what to do instead.
    reader = _visitor(mail_app, READER)
    refused = ask_for_message(reader, email_link, LISTED)
    assert refused.status_code == 429
    assert "Open the newest one" in refused.get_data(as_text=True)
    # The newest message in the reader's mailbox: its link, with its code, signs them in.
    mail = parse_mail(smtp.to(LISTED)[-1])
    landing = reader.get(mail.link_path)
    assert landing.status_code == 200 and 'name="code"' in landing.get_data(as_text=True)
    done = reader.post(mail.link_path, data={
        "csrf_token": csrf_token(landing.get_data(as_text=True)), "code": mail.code})
    assert done.status_code == 302, done.get_data(as_text=True)[:300]
    assert _reads(reader, email_link)


def test_the_links_own_attempts_are_still_capped(mail_app, smtp, email_link):
    # The link's way in has its own five attempts: a leaked link is not a free guesser.
    ask_for_message(_visitor(mail_app, READER), email_link, LISTED)
    mail = parse_mail(smtp.wait_for(LISTED))
    holder = _visitor(mail_app, ATTACKERS[0])
    token = csrf_token(holder.get(mail.link_path).get_data(as_text=True))
    wrong = "AAAA-AAAA" if mail.code != "AAAA-AAAA" else "BBBB-BBBB"
    answers = [holder.post(mail.link_path, data={"csrf_token": token, "code": wrong})
               for _ in range(5)]
    assert "Too many wrong codes" in answers[-1].get_data(as_text=True)
    late = holder.post(mail.link_path, data={"csrf_token": token, "code": mail.code})
    assert late.status_code == 400
    assert not _reads(holder, email_link)
