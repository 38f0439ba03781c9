"""What an address typed on the sign-in page must be, and where its message goes.

An address is accepted only if it is a plain address: valid by ``email_validator`` (no
quoted local part, no domain literal), at most 254 characters, and unchanged when written
into a mail header and read back. That refuses RFC 2047 encoded words
(``=?utf-8?q?...?=@example.com``), which a header would decode into other characters
(line breaks included), before anything is stored or sent.

Two forms are kept: ``normalized`` (what the session proves and the API compares with its
list, both normalized by ``email_validator``: a Unicode domain), and ``mailbox``, where
the message goes: the ASCII (punycode) domain whenever the local part is ASCII, so that
any SMTP server takes it; only a non-ASCII local part needs a server with SMTPUTF8.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.errors import HeaderParseError
from email.message import EmailMessage

from email_validator import EmailNotValidError, validate_email

MAX_EMAIL_LENGTH = 254


class BadAddress(ValueError):
    """The typed text is not a plain e-mail address."""


@dataclass(frozen=True)
class Address:
    """An accepted address: as proved and compared, and as the message is sent to."""

    normalized: str
    mailbox: str

    @property
    def needs_smtputf8(self) -> bool:
        """Tell whether the message can only go through a server offering SMTPUTF8."""
        return not self.mailbox.isascii()


def _survives_a_header(address: str) -> bool:
    """Tell whether ``address`` reads back unchanged from a ``To:`` header."""
    message = EmailMessage()
    try:
        message["To"] = address
        parsed = message["To"].addresses
    except (ValueError, IndexError, HeaderParseError):
        return False
    return len(parsed) == 1 and parsed[0].addr_spec == address


def parse(typed: str) -> Address:
    """Return the address typed, or raise ``BadAddress``."""
    text = typed.strip()
    # Encoded words never belong in an address; a header would decode them.
    if len(text) > MAX_EMAIL_LENGTH or "=?" in text:
        raise BadAddress(text)
    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError as error:
        raise BadAddress(text) from error
    mailbox = checked.ascii_email or checked.normalized
    if not all(_survives_a_header(form) for form in {checked.normalized, mailbox}):
        raise BadAddress(text)
    return Address(checked.normalized, mailbox)
