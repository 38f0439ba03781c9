"""How the link of the current page is shared: public, or with specific people (sign-in).

The API's share read (the SDK's ``ShareLinkReadResponse``) does not say a link's access
mode, and the viewer uses no field beyond the SDK's, so it tells from what it knows:

- a sign-in or no-access page answered at a link's URL (``g.no_embed_tools``, set by
  ``signin.pages.render``): the link asked who the visitor is, so it is ``EMAIL``;
- a page whose link was read (``loaders.load_share`` sets ``g.share_test_data``) by a
  visitor WITHOUT a verified address: the API granted it to anyone, so ``PUBLIC``;
- read by a visitor with a verified address (the read carried their token): the same
  link read once without the token tells (granted: ``PUBLIC``; 401: ``EMAIL``). That
  answer is kept in the visitor's server-side session, keyed by a hash of the link id
  (never the id), so it costs one extra read per link and session;
- anything else (an error page, a page that read no link): ``None``, nothing is said.

``templates/base.html`` words the footer from it and ``web.embeds`` offers the embed code
only for ``PUBLIC`` links: a frame of an email-mode link shows others a sign-in form.
"""

from __future__ import annotations

from flask import g, request, session

from app.viewer.access import codes, identity
from app.viewer.core.api_client import api
from app.viewer.core.errors import ApiError, LinkNeedsSignIn

PUBLIC = "public"
EMAIL = "email"
SESSION_KEY = "link_access"
MAX_REMEMBERED = 20
_UNSET = object()


def _remembered(link_id: str) -> str | None:
    return (session.get(SESSION_KEY) or {}).get(codes.link_hash(link_id)[:16])


def _remember(link_id: str, mode: str) -> None:
    known = dict(session.get(SESSION_KEY) or {})
    while len(known) >= MAX_REMEMBERED:
        known.pop(next(iter(known)))
    known[codes.link_hash(link_id)[:16]] = mode
    session[SESSION_KEY] = known


def _probe(link_id: str) -> str | None:
    """Read the link without the visitor's token: granted is public, 401 is email-mode."""
    try:
        api().share(link_id, None)
    except LinkNeedsSignIn:
        return EMAIL
    except ApiError:
        return None  # gone meanwhile, or the API failing: say nothing
    return PUBLIC


def mode_of(link_id: str) -> str | None:
    """Return ``PUBLIC``, ``EMAIL`` or None for ``link_id`` on this request (module doc)."""
    if g.get("no_embed_tools"):
        return EMAIL
    if g.get("share_test_data") is None:
        return None  # no read of the link succeeded on this request
    if identity.verified_email() is None:
        return PUBLIC
    found = _remembered(link_id)
    if found is None:
        found = _probe(link_id)
        if found is not None:
            _remember(link_id, found)
    return found


def current() -> str | None:
    """Return the access mode of this request's link (computed once a request), or None."""
    cached = g.get("link_access_mode", _UNSET)
    if cached is _UNSET:
        link_id = (request.view_args or {}).get("link_id")
        cached = mode_of(link_id) if link_id else None
        g.link_access_mode = cached
    return cached
