"""Fixtures of the sign-in tests: a real SMTP server on loopback and an email-mode link.

``smtp`` is an aiosmtpd server on a free port that keeps every message it receives;
``mail_app`` is the app configured to send through it; ``email_link`` is an email-mode
link (two addresses listed) over one pipeline with results.

The helpers behind these fixtures live in ``tests/support/signin.py``.
"""

from __future__ import annotations

import pytest

from tests.support.signin import (
    EmailLink,
    make_email_link,
    smtp_server,
)


@pytest.fixture
def smtp():
    """A real SMTP server on loopback; yields its Inbox with ``.port``."""
    with smtp_server() as inbox:
        yield inbox


@pytest.fixture
def mail_app(app, smtp):
    """The app, sending sign-in mail through the ``smtp`` server."""
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp.port,
                      MAIL_SENDER="Results <results@lab.example>", PRODUCT_NAME="Lab Share")
    return app


@pytest.fixture
def email_link(app, org) -> EmailLink:
    """An email-mode link listing ada@ and bob@example.org."""
    return make_email_link(app, org)
