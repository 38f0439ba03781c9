"""What a visitor sees when a link needs sign-in (401) or refuses their address (403).

The viewer's error pages answer ``LinkNeedsSignIn`` with ``sign_in_required`` and
``LinkForbidden`` with ``access_denied``; both know the link only by its id.
"""

from __future__ import annotations

import logging

from flask import Response, redirect, request, url_for

from app.viewer.access.identity import verified_email
from app.viewer.signin import navigation, pages

log = logging.getLogger(__name__)


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
