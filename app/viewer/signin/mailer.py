"""Sending the sign-in message: SMTP when configured, otherwise the log (development).

Settings (``FLASK_`` prefix in the environment): ``MAIL_SERVER``, ``MAIL_PORT``,
``MAIL_USE_TLS`` (STARTTLS), ``MAIL_USE_SSL`` (implicit TLS), ``MAIL_USERNAME`` and
``MAIL_PASSWORD`` (login only when both are set), ``MAIL_SENDER``, ``MAIL_TIMEOUT``
(seconds), ``PRODUCT_NAME``.

The message goes to ``Address.mailbox`` (``addresses.py``): an ASCII domain whenever the
local part is ASCII. A non-ASCII local part needs a server offering SMTPUTF8; without it,
``MailNotDeliverable`` says so before anything is sent (the visitor is asked for another
address, not told to retry).

With no ``MAIL_SERVER`` the message is not sent. Instead the app log gets a warning with
the address and the code; the log filter redacts share ids, so the link in that line is
not usable, but the code is, in the browser that asked. With ``FLASK_DEBUG`` on, the whole
text part (link included) is also printed to stderr, outside the redacting logger, as a
deliberate development convenience; production servers never run in debug mode.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import sys
from email.message import EmailMessage
from email.utils import make_msgid

from flask import current_app, render_template

from app.platform.settings import setting

log = logging.getLogger(__name__)


class MailNotSent(Exception):
    """The SMTP server could not be reached or refused the message."""


class MailNotDeliverable(MailNotSent):
    """The address needs SMTPUTF8 (a non-ASCII local part) and the server lacks it."""


def build_message(*, to: str, link_url: str, code: str, minutes: int,
                  shown: str | None = None) -> EmailMessage:
    """Build the sign-in message: a plain-text part and an HTML alternative.

    ``to`` is the mailbox written in the envelope and header; ``shown`` the address as the
    visitor knows it (its Unicode domain), written in the text. Default: ``to``.
    """
    product = setting(current_app, "PRODUCT_NAME")
    sender = setting(current_app, "MAIL_SENDER")
    context = {"product_name": product, "link_url": link_url, "code": code, "minutes": minutes,
               "email": shown or to}
    message = EmailMessage()
    message["Subject"] = f"Your {product} sign-in code: {code}"
    message["From"] = sender
    message["To"] = to
    sender_domain = sender.rsplit("@", 1)[-1].strip(">") or "localhost"
    message["Message-ID"] = make_msgid(domain=sender_domain)
    # Ask mail clients and auto-responders to keep quiet about a one-time message.
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(render_template("signin/mail.txt", **context))
    message.add_alternative(render_template("signin/mail.html", **context), subtype="html")
    return message


def _smtp_send(message: EmailMessage) -> None:
    host, port = setting(current_app, "MAIL_SERVER"), setting(current_app, "MAIL_PORT")
    timeout, use_ssl = setting(current_app, "MAIL_TIMEOUT"), setting(current_app, "MAIL_USE_SSL")
    username = setting(current_app, "MAIL_USERNAME")
    password = setting(current_app, "MAIL_PASSWORD")
    context = ssl.create_default_context()
    if use_ssl:
        smtp: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
    else:
        smtp = smtplib.SMTP(host, port, timeout=timeout)
    with smtp:
        if setting(current_app, "MAIL_USE_TLS") and not use_ssl:
            smtp.starttls(context=context)
        if username and password:
            smtp.login(username, password)
        smtp.ehlo_or_helo_if_needed()
        if not str(message["To"]).isascii() and not smtp.has_extn("smtputf8"):
            raise MailNotDeliverable("the server does not offer SMTPUTF8")
        smtp.send_message(message)


def _log_instead(message: EmailMessage, code: str) -> None:
    log.warning(
        "MAIL_SERVER is not set: sign-in message to %s was not sent. Its code is %s "
        "(type it in the browser that asked).",
        message["To"], code,
    )
    if current_app.debug:
        text = message.get_body(("plain",)).get_content()
        print(f"----- sign-in message (debug, not sent) -----\n{text}\n-----",
              file=sys.stderr, flush=True)


def send(message: EmailMessage, code: str) -> None:
    """Send ``message`` (or log it in development); raise MailNotSent on failure."""
    if not setting(current_app, "MAIL_SERVER"):
        _log_instead(message, code)
        return
    try:
        _smtp_send(message)
    except MailNotDeliverable:
        log.warning("sign-in mail not sent: the address needs SMTPUTF8, which the SMTP "
                    "server does not offer")
        raise
    except (smtplib.SMTPException, OSError, ssl.SSLError) as error:
        # The address is personal data; the error class and text say what went wrong.
        log.error("sign-in mail could not be sent: %s: %s", type(error).__name__, error)
        raise MailNotSent(str(error)) from error
