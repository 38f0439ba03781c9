"""One-time sign-in secrets: the link token and the short code of one message.

Each message carries two forms of one credential: a link token (256 random bits, in the
URL) and a short code (8 characters, about 40 bits, typed by hand). Either redeems the
pending sign-in once. The link alone works only in the browser that asked for it; anywhere
else the code is needed as well, so a link that leaks through a proxy log, a browser sync
or a mail scanner is not enough on its own.

Only keyed hashes (HMAC-SHA256 with the app's secret key) are stored: a copy of the
database does not reveal a live code, and the short code cannot be brute-forced offline.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app

from app.platform.settings import setting
from app.platform.timeutil import utcnow
from app.viewer.store import commit_conn, get_conn, signin_requests
from app.viewer.store.signin_requests import SigninRequest

# No 0/O, 1/I/L: a code read off a phone screen is typed right the first time.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


class Outcome(enum.Enum):
    """What happened to a code or link; each has its own message for the visitor."""

    OK = "ok"
    WRONG = "wrong"
    EXPIRED = "expired"
    USED = "used"
    LOCKED = "locked"
    INVALID = "invalid"


@dataclass(frozen=True)
class Issued:
    """A pending sign-in just created, with the secrets that go into the message."""

    request: SigninRequest
    token: str
    code: str


def keyed_hash(purpose: str, value: str) -> str:
    """Return the hex HMAC-SHA256 of ``value`` under the app secret, separated by purpose."""
    key = setting(current_app, "SECRET_KEY")
    key_bytes = key.encode() if isinstance(key, str) else key
    message = f"signin:{purpose}:{value}".encode()
    return hmac.new(key_bytes, message, hashlib.sha256).hexdigest()


def link_hash(link_id: str) -> str:
    """Return the stored form of a share link id (the id itself is a credential)."""
    return keyed_hash("link", link_id)


def normalize_code(typed: str) -> str:
    """Return the code as stored: upper case, without spaces or dashes."""
    return "".join(ch for ch in typed.upper() if ch.isalnum())


def format_code(code: str) -> str:
    """Return the code as shown in the message, e.g. ``ABCD-EFGH``."""
    return f"{code[:4]}-{code[4:]}"


def issue(link_id: str, email: str, browser_nonce: str, next_path: str) -> Issued:
    """Create a pending sign-in for ``email`` on ``link_id``, bound to this browser.

    ``next_path`` is the page to return to, relative to ``/share/<id>`` (no id stored).
    """
    token = secrets.token_urlsafe(32)
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    request_id = secrets.token_urlsafe(16)
    conn = get_conn()
    record = signin_requests.create_request(
        conn,
        request_id=request_id,
        share_link_hash=link_hash(link_id),
        email=email,
        token_hash=keyed_hash("token", token),
        # The request id is mixed in so that equal codes of two requests hash apart.
        code_hash=keyed_hash("code", f"{request_id}:{code}"),
        browser_hash=keyed_hash("browser", browser_nonce),
        next_path=next_path,
        ttl=timedelta(seconds=setting(current_app, "SIGNIN_CODE_TTL_SECONDS")),
    )
    # Committed now: the SMTP conversation that follows must not hold the database's
    # write lock (SQLite) or an open transaction for up to MAIL_TIMEOUT seconds.
    commit_conn()
    return Issued(record, token, code)


def pending(request_id: str, link_id: str) -> SigninRequest | None:
    """Return the pending sign-in ``request_id`` if it belongs to ``link_id``."""
    record = signin_requests.get_request(get_conn(), request_id)
    if record is None or not hmac.compare_digest(record.share_link_hash, link_hash(link_id)):
        return None
    return record


def by_token(token: str, link_id: str) -> SigninRequest | None:
    """Return the pending sign-in of a link token if it belongs to ``link_id``."""
    record = signin_requests.find_by_token_hash(get_conn(), keyed_hash("token", token))
    if record is None or not hmac.compare_digest(record.share_link_hash, link_hash(link_id)):
        return None
    return record


def same_browser(record: SigninRequest, browser_nonce: str | None) -> bool:
    """Tell whether this browser is the one that asked for the message."""
    if not browser_nonce:
        return False
    return hmac.compare_digest(record.browser_hash, keyed_hash("browser", browser_nonce))


def max_attempts() -> int:
    """Return how many codes may be typed for one message before it locks."""
    return setting(current_app, "SIGNIN_MAX_CODE_ATTEMPTS")


def state(record: SigninRequest) -> Outcome:
    """Return why ``record`` can no longer be redeemed at all, or OK while it is live."""
    if record.used_at is not None:
        return Outcome.USED
    if record.expires_at <= utcnow():
        return Outcome.EXPIRED
    return Outcome.OK


def _attempts(record: SigninRequest, counter: str) -> int:
    return record.link_attempts if counter == signin_requests.LINK else record.attempts


def state_for_code(record: SigninRequest, counter: str = signin_requests.CODE) -> Outcome:
    """Return ``state(record)``, or LOCKED when that way in has no attempts left.

    ``counter``: ``signin_requests.CODE`` for a code typed in the browser that asked,
    ``signin_requests.LINK`` for one typed with the message's link in another browser.
    """
    current = state(record)
    if current is Outcome.OK and _attempts(record, counter) >= max_attempts():
        return Outcome.LOCKED
    return current


def attempts_left(record: SigninRequest, counter: str = signin_requests.CODE) -> int:
    """Return how many more codes may be typed that way (after a refreshed read of the row)."""
    fresh = signin_requests.get_request(get_conn(), record.id) or record
    return max(0, max_attempts() - _attempts(fresh, counter))


def check_code(
    record: SigninRequest, typed: str, counter: str = signin_requests.CODE
) -> Outcome:
    """Redeem ``record`` with a typed code: counts the attempt, then consumes on a match.

    The attempt is counted on ``counter`` only: wrong codes typed in the browser that
    asked (perhaps an outsider's, who asked for a listed reader's message) never use up
    the attempts of the message's link, which only its mailbox's owner holds.
    """
    current = state_for_code(record, counter)
    if current is not Outcome.OK:
        return current
    conn = get_conn()
    if not signin_requests.count_attempt(conn, record.id, max_attempts(), counter):
        return state_for_code(signin_requests.get_request(conn, record.id) or record, counter)
    expected = keyed_hash("code", f"{record.id}:{normalize_code(typed)}")
    if not hmac.compare_digest(expected, record.code_hash):
        fresh = signin_requests.get_request(conn, record.id) or record
        return Outcome.LOCKED if _attempts(fresh, counter) >= max_attempts() else Outcome.WRONG
    return Outcome.OK if signin_requests.consume(conn, record.id) else Outcome.USED


def redeem_in_same_browser(record: SigninRequest) -> Outcome:
    """Redeem ``record`` through its link, in the browser that asked (checked by caller).

    The link and the browser together prove the mailbox: wrong codes typed before do not
    lock this way in, only use and expiry do.
    """
    current = state(record)
    if current is not Outcome.OK:
        return current
    return Outcome.OK if signin_requests.consume(get_conn(), record.id) else Outcome.USED
