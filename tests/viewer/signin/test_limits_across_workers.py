"""The default configuration enforces each limit exactly across workers (issue 7, fault 4).

Gunicorn with 4 workers, as ``make run`` starts it: no ``FLASK_RATELIMIT_STORAGE_URI``,
so the counts live in the viewer store. 20 browsers at once ask for a message to one
address whose limit is 5: exactly 5 messages go out, whichever workers answer.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support.apps import make_org
from tests.support.servers import stop_gunicorn
from tests.support.signin import LISTED, csrf_token, make_email_link, start_mailing_server

# The rate-limit key's upsert serialises the workers: a row lock on PostgreSQL.
pytestmark = [pytest.mark.dialect, pytest.mark.slow]

WORKERS = 4
BROWSERS = 20


@pytest.fixture
def four_workers(app, db_url, tmp_path, smtp):
    """Gunicorn with four workers in the default limit configuration, mailing ``smtp``."""
    # Only the per-address limit (default: 5 per 15 minutes) is under test here.
    server = start_mailing_server(db_url, tmp_path, smtp, WORKERS,
                                  FLASK_SIGNIN_LIMIT_REQUESTS_PER_CLIENT="1000 per hour")
    yield server
    stop_gunicorn(server)


def test_five_messages_per_address_means_five_with_four_workers(app, four_workers, smtp):
    link = make_email_link(app, make_org(app))

    def ask(_):
        with httpx.Client(base_url=four_workers.url, timeout=60) as browser:
            page = browser.get(f"/share/{link.id}/sign-in")
            posted = browser.post(f"/share/{link.id}/sign-in",
                                  data={"csrf_token": csrf_token(page.text), "email": LISTED})
            return posted.status_code

    with ThreadPoolExecutor(max_workers=BROWSERS) as pool:
        statuses = list(pool.map(ask, range(BROWSERS)))
    print(f"{WORKERS} workers, limit 5: {statuses.count(302)} sent, "
          f"{statuses.count(429)} refused, {len(smtp.to(LISTED))} messages received")
    assert statuses.count(302) == 5, statuses
    assert statuses.count(429) == BROWSERS - 5, statuses
    assert len(smtp.to(LISTED)) == 5
