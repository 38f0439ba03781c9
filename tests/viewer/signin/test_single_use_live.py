"""Single use holds across worker processes: parallel redemptions, one winner."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support.apps import make_org
from tests.support.servers import stop_gunicorn
from tests.support.signin import (
    LISTED,
    csrf_token,
    make_email_link,
    parse_mail,
    start_mailing_server,
)

# Single use across worker processes: a conditional UPDATE under row locks.
pytestmark = [pytest.mark.dialect, pytest.mark.slow]


@pytest.fixture
def mail_server(app, db_url, tmp_path, smtp):
    """Gunicorn with two workers, sending mail to ``smtp``, on the test database."""
    server = start_mailing_server(db_url, tmp_path, smtp, 2)
    yield server
    stop_gunicorn(server)


def test_parallel_redemptions_of_one_link_sign_in_once(app, mail_server, smtp):
    link = make_email_link(app, make_org(app))
    base = mail_server.url
    with httpx.Client(base_url=base, timeout=20) as browser:
        page = browser.get(f"/share/{link.id}/sign-in")
        posted = browser.post(f"/share/{link.id}/sign-in",
                              data={"csrf_token": csrf_token(page.text), "email": LISTED})
        assert posted.status_code == 302
        mail = parse_mail(smtp.wait_for(LISTED))
        landing = browser.get(mail.link_path)
        assert landing.status_code == 200
        form = {"csrf_token": csrf_token(landing.text)}
        cookies = dict(browser.cookies)

    def redeem(_):
        with httpx.Client(base_url=base, cookies=cookies, timeout=20) as twin:
            return twin.post(mail.link_path, data=form).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(redeem, range(8)))
    assert statuses.count(302) == 1, statuses
    assert statuses.count(400) == 7, statuses
