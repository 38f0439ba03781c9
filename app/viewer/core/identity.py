"""The seam between viewer pages and sign-in: who the visitor is for a share link.

Viewer views call ``bearer_for(link_id)`` before each API call (None for an anonymous
visitor), ``sign_in_required(link_id)`` when the API answers 401, and
``access_denied(link_id)`` when it answers 403. The sign-in package
(``app.viewer.signin``) owns the session state behind these functions.
"""

from __future__ import annotations

import logging

from flask import Response, redirect, request, url_for

from app import share_tokens
from app.viewer.signin import navigation, pages, state

log = logging.getLogger(__name__)

SESSION_EMAIL_KEY = state.EMAIL_KEY


def verified_email() -> str | None:
    """Return the address this browser proved (and whose proof is recent), or None."""
    return state.verified_email()


def bearer_for(link_id: str) -> str | None:
    """Return a fresh JWT for ``link_id`` when the visitor has a verified address."""
    email = verified_email()
    return share_tokens.mint(link_id, email) if email else None


def _current_path() -> str | None:
    """Return the page being asked for, to come back to after sign-in (GET only)."""
    if request.method != "GET":
        return None
    query = request.query_string.decode("latin-1")
    return request.path + (f"?{query}" if query else "")


def sign_in_required(link_id: str) -> Response:
    """Send the visitor to the sign-in page, remembering the page they asked for."""
    if verified_email():
        # A signed-in visitor's token was refused: almost always a key mismatch between
        # the viewer (FLASK_JWT_PRIVATE_KEY) and the API (public key or JWKS URL).
        log.warning("the API refused a viewer-signed token; check the JWT key configuration")
    next_path = navigation.safe_next(link_id, _current_path())
    return redirect(url_for("signin.request_form", link_id=link_id, next=next_path,
                            embed=navigation.embed_arg()))


def access_denied(link_id: str) -> Response:
    """Answer the no-access page: the address, what to do, and nothing of the link."""
    return pages.render("signin/no_access.html", link_id, 403, email=verified_email())
