"""SMTP down behind the sign-in: refused, or a server that accepts and never speaks. The
visitor gets the "try again in a few minutes" page (503) within ``MAIL_TIMEOUT``, never a
500 or a hung worker, and no sign-in is left pending for a message that was never sent.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support.apps import make_org
from tests.support.servers import free_port
from tests.support.signin import LISTED, ask_for_message, make_email_link

MAIL_TIMEOUT = 1


@contextmanager
def _silent_server() -> Iterator[int]:
    """Listen on a loopback port and never answer: the handshake completes, no greeting."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


@contextmanager
def _refusing_port() -> Iterator[int]:
    yield free_port()


@pytest.mark.parametrize("smtp_down", [_refusing_port, _silent_server],
                         ids=["refused", "silent"])
@pytest.mark.slow
def test_smtp_down_asks_to_try_later_within_the_mail_timeout(app, smtp_down):
    link = make_email_link(app, make_org(app))
    client = app.test_client()
    with smtp_down() as port:
        app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=port, MAIL_TIMEOUT=MAIL_TIMEOUT)
        started = time.monotonic()
        response = ask_for_message(client, link, LISTED)
        elapsed = time.monotonic() - started
    assert response.status_code == 503, response.data[:300]
    assert "try again in a few minutes" in response.get_data(as_text=True)
    assert elapsed < MAIL_TIMEOUT + 2, elapsed
    # Nothing is pending: the code page sends the visitor back to ask again.
    assert client.get(link.path("/sign-in/code")).status_code == 302
