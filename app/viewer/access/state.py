"""What the sign-in keeps in the visitor's session.

The session is kept on the server (``sessions.py``; the cookie holds only an opaque id:
HttpOnly; SameSite=Lax, Secure under https; see ``cookies.py``). It holds:

- ``verified_email`` and ``verified_at``: the address this browser proved, and when;
- ``signin_browser``: a random nonce naming this browser, to which sign-in links are bound;
- ``signin_pending``: for each share link (keyed by a hash of its id, never the id), the
  pending sign-in request id and the address it was sent to.
"""

from __future__ import annotations

import secrets
import time

from flask import session

from app.viewer.access import codes, sessions

EMAIL_KEY = sessions.EMAIL_KEY
VERIFIED_AT_KEY = sessions.VERIFIED_AT_KEY
BROWSER_KEY = "signin_browser"
PENDING_KEY = "signin_pending"
MAX_PENDING = 5


def verified_email() -> str | None:
    """Return the address this browser proved, unless that proof is too old."""
    email = session.get(EMAIL_KEY)
    if not email:
        return None
    # The store drops the session at the same bound; this guards a session made elsewhere.
    max_age = sessions.session_hours() * 3600
    if time.time() - float(session.get(VERIFIED_AT_KEY, 0)) > max_age:
        return None
    return email


def sign_in(email: str) -> None:
    """Remember ``email`` as proved by this browser, under a new session id."""
    session.permanent = True
    session[EMAIL_KEY] = email
    session[VERIFIED_AT_KEY] = int(time.time())
    sessions.new_id(session)


def sign_out() -> None:
    """Forget everything sign-in put into the session; its stored record is deleted."""
    session.clear()


def browser_nonce(create: bool = False) -> str | None:
    """Return this browser's nonce, creating it when ``create`` is set."""
    nonce = session.get(BROWSER_KEY)
    if nonce is None and create:
        nonce = secrets.token_urlsafe(16)
        session[BROWSER_KEY] = nonce
    return nonce


def _link_key(link_id: str) -> str:
    return codes.link_hash(link_id)[:16]


def set_pending(link_id: str, request_id: str, email: str) -> None:
    """Remember the sign-in just requested for ``link_id`` (a few links at most)."""
    pending = dict(session.get(PENDING_KEY) or {})
    pending.pop(_link_key(link_id), None)
    while len(pending) >= MAX_PENDING:
        pending.pop(next(iter(pending)))
    pending[_link_key(link_id)] = {"id": request_id, "email": email}
    session[PENDING_KEY] = pending


def get_pending(link_id: str) -> dict | None:
    """Return ``{"id", "email"}`` of the sign-in pending for ``link_id``, or None."""
    return (session.get(PENDING_KEY) or {}).get(_link_key(link_id))


def clear_pending(link_id: str) -> None:
    """Forget the pending sign-in of ``link_id``."""
    pending = dict(session.get(PENDING_KEY) or {})
    if pending.pop(_link_key(link_id), None) is not None:
        session[PENDING_KEY] = pending
