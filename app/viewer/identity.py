"""The seam between viewer pages and sign-in: who the visitor is for a share link.

Viewer views call ``bearer_for(link_id)`` before each API call (None for an anonymous
visitor), ``sign_in_required(link_id)`` when the API answers 401, and
``access_denied(link_id)`` when it answers 403. The sign-in package
(``app.viewer.signin``) owns the session state behind these functions.
"""

from __future__ import annotations

from flask import Response, abort, session

from app import share_tokens

SESSION_EMAIL_KEY = "verified_email"


def verified_email() -> str | None:
    """Return the address this browser proved, or None."""
    return session.get(SESSION_EMAIL_KEY)


def bearer_for(link_id: str) -> str | None:
    """Return a fresh JWT for ``link_id`` when the visitor has a verified address."""
    email = verified_email()
    return share_tokens.mint(link_id, email) if email else None


def sign_in_required(link_id: str) -> Response:
    """Answer a page that needs a verified address (replaced by the sign-in flow)."""
    abort(401)


def access_denied(link_id: str) -> Response:
    """Answer a page whose visitor's address is not on the link's list."""
    abort(403)
