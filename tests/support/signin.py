"""Sign-in helpers: a real SMTP server on loopback (its inbox), email-mode links, and the
steps a reader takes (ask for a message, submit a code, sign in)."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiosmtpd.controller import Controller

from app.platform.db import get_engine
from tests.support import factories
from tests.support.servers import LiveServer, free_port, start_gunicorn

LISTED = "ada@example.org"


ALSO_LISTED = "bob@example.org"


UNLISTED = "eve@example.org"


CODE_RE = re.compile(r"\b([A-Z2-9]{4}-[A-Z2-9]{4})\b")


LINK_RE = re.compile(r"https?://\S+/sign-in/link/[A-Za-z0-9_\-]+")


CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


class Inbox:
    """aiosmtpd handler that keeps received messages, parsed, in arrival order."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self._arrived = threading.Condition()

    async def handle_DATA(self, server, session, envelope):  # the name aiosmtpd calls
        """Store the message and wake up waiting tests."""
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._arrived:
            self.messages.append(message)
            self._arrived.notify_all()
        return "250 OK"

    def wait_for(self, to: str, count: int = 1, timeout: float = 10) -> email.message.EmailMessage:
        """Return the ``count``-th message to ``to``, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                found = [m for m in self.messages if m["To"] == to]
                if len(found) >= count:
                    return found[count - 1]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no message #{count} to {to} within {timeout} s")
                self._arrived.wait(remaining)

    def to(self, address: str) -> list[email.message.EmailMessage]:
        """Return every message received for ``address``."""
        return [m for m in self.messages if m["To"] == address]


@dataclass
class Mail:
    """A received sign-in message, taken apart."""

    message: email.message.EmailMessage
    text: str = ""
    html: str = ""
    code: str = ""
    link: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def link_path(self) -> str:
        """Return the path of the sign-in link (the test client has no host)."""
        return "/" + self.link.split("/", 3)[3]


def parse_mail(message) -> Mail:
    """Extract the text and HTML parts, the code and the link of a sign-in message."""
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    code = CODE_RE.search(text).group(1)
    link = LINK_RE.search(text).group(0)
    return Mail(message, text, html, code, link)


@contextmanager
def smtp_server(**options) -> Iterator[Inbox]:
    """Run an aiosmtpd server on a free loopback port; yield its Inbox with ``.port``.

    ``options`` go to aiosmtpd's ``Controller`` (``authenticator``, ``tls_context``...).
    """
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, **options)
    controller.start()
    inbox.port = port
    try:
        yield inbox
    finally:
        controller.stop()


@dataclass
class EmailLink:
    """An email-mode link, a public one, and the pipeline they cover."""

    id: str
    public_id: str
    pipeline_id: str
    result_ids: list[str]

    def path(self, suffix: str = "") -> str:
        """Return the viewer path of the email link plus ``suffix``."""
        return f"/share/{self.id}{suffix}"


def make_email_link(app, org) -> EmailLink:
    """Insert a pipeline with results, an email-mode link over it and a public one."""
    with get_engine(app).begin() as conn:
        pipeline_id, result_ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 3,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id], access_mode="email",
                               allowed_emails=["Ada@Example.org", ALSO_LISTED])
    public = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return EmailLink(link.id, public.id, pipeline_id, result_ids)


def csrf_token(html: str) -> str:
    """Return the CSRF token of the first form in ``html``."""
    return CSRF_RE.search(html).group(1)


def ask_for_message(client, link: EmailLink, address: str, next_path: str | None = None):
    """Open the sign-in page and submit ``address``; return the POST response."""
    query = f"?next={next_path}" if next_path else ""
    page = client.get(link.path(f"/sign-in{query}"))
    assert page.status_code == 200, page.data[:300]
    html = page.get_data(as_text=True)
    form = {"csrf_token": csrf_token(html), "email": address}
    if next_path:
        form["next"] = next_path
    return client.post(link.path("/sign-in"), data=form)


def submit_code(client, link: EmailLink, code: str):
    """Type ``code`` on the code page of this browser's pending sign-in."""
    page = client.get(link.path("/sign-in/code"))
    return client.post(link.path("/sign-in/code"),
                       data={"csrf_token": csrf_token(page.get_data(as_text=True)),
                             "code": code})


def sign_in(client, smtp: Inbox, link: EmailLink, address: str, count: int = 1):
    """Go through the whole code flow for ``address``; return the final response."""
    response = ask_for_message(client, link, address)
    assert response.status_code == 302, response.data[:300]
    mail = parse_mail(smtp.wait_for(address, count))
    return submit_code(client, link, mail.code)


def start_mailing_server(db_url: str, tmp_path, smtp: Inbox, workers: int,
                         **settings: str) -> LiveServer:
    """Start gunicorn with ``workers`` workers on the database at ``db_url``, sending its
    mail to ``smtp``; ``settings`` are more ``FLASK_*`` variables. Stop it with
    ``stop_gunicorn``."""
    return start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "live-secret",
        "FLASK_INSTANCE_PATH": str(tmp_path / "instance"),
        "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
        "FLASK_MAIL_SERVER": "127.0.0.1", "FLASK_MAIL_PORT": str(smtp.port), **settings,
    }, tmp_path, workers=workers)
