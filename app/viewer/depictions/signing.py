"""Signed depiction URLs: a page of a link may show a drawing, and only what it emitted.

A page asks ``depiction_url`` for each molecule it shows; the URL carries the SMILES,
the highlight and the size in its query string and an HMAC of them with the link id
(key derived from the app's ``SECRET_KEY``) in its path. The route
(``depictions.views``) draws only a URL whose signature ``signature_matches``, so it is
no general-purpose drawing service.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, urlencode

from flask import current_app, g, url_for

from app.platform.settings import setting

_SIGNATURE_HEX = 32  # 128 bits of HMAC-SHA256


def _key() -> bytes:
    key = current_app.extensions.get("depictions_key")
    if key is None:
        secret = str(setting(current_app, "SECRET_KEY")).encode()
        key = current_app.extensions["depictions_key"] = hashlib.sha256(
            b"share-viewer depictions\0" + secret).digest()
    return key


def sign(link_id: str, smiles: str, highlight: str | None, size: str) -> str:
    """Return the HMAC signature of a depiction of ``smiles`` on a page of ``link_id``."""
    message = "\0".join((link_id, smiles, highlight or "", size)).encode()
    return hmac.new(_key(), message, hashlib.sha256).hexdigest()[:_SIGNATURE_HEX]


def signature_matches(signature: str, link_id: str, smiles: str, highlight: str | None,
                      size: str) -> bool:
    """Whether ``signature`` (from a URL's path) is the one ``sign`` gives these values."""
    expected = sign(link_id, smiles, highlight, size)
    # As bytes: compare_digest refuses str with non-ASCII characters (a TypeError, a 500).
    return hmac.compare_digest(signature.encode(), expected.encode())


def depiction_url(link_id: str, smiles: str, highlight: str | None = None,
                  size: str = "row") -> str:
    """Return the signed URL of the depiction of ``smiles`` for a page of ``link_id``.

    The route's path is built by ``url_for`` once per link and request and the rest by
    hand: a 100-row table asks for 100 URLs, and ``url_for`` each time would be most of
    the cost the depictions add to the page.
    """
    prefixes = g.setdefault("depiction_prefixes", {})
    prefix = prefixes.get(link_id)
    if prefix is None:
        prefix = prefixes[link_id] = url_for("depictions.depiction", link_id=link_id,
                                             signature="0")[:-len("0.svg")]
    values = {"smiles": smiles, "size": size}
    if highlight:
        values["highlight"] = highlight
    query = urlencode(values, quote_via=quote, safe="()=[]@")
    return f"{prefix}{sign(link_id, smiles, highlight, size)}.svg?{query}"
