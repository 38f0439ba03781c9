"""Depictions under the share path: signed image URLs, the SVG route, the page markup.

A page asks ``depiction_url`` for each molecule it shows; the URL carries the SMILES,
the highlight and the size in its query string and an HMAC of them with the link id
(key derived from the app's ``SECRET_KEY``) in its path. The route draws only what a
page of that link emitted: a URL whose signature does not match is the shared 404, so
the route is no general-purpose drawing service. The link itself is checked through
the API like every page (``load_share``): an archived or expired link is the same 404,
and an email link without a session is a 404 too (an image cannot follow a sign-in
redirect).

Caching: the body is a pure function of the signed URL, so it may stay in the visitor's
own browser cache (``private``, never a shared cache: the URL holds the share id) for
``MAX_AGE`` seconds. A day covers a working session and the next morning's visit; the
link being revoked meanwhile only means the visitor keeps a drawing of a SMILES they were
already shown. Pages themselves stay ``no-store``.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, urlencode

from flask import Blueprint, Flask, Response, current_app, g, request, url_for
from markupsafe import Markup, escape

from app.viewer.chem import depict, properties
from app.viewer.core.errors import LinkForbidden, LinkNeedsSignIn, LinkNotFound
from app.viewer.core.loaders import load_share
from app.viewer.web import security

bp = Blueprint("depictions", __name__)

MAX_AGE = 86400
# An SVG shown through <img> runs no script anyway; opened directly, this policy keeps
# it so (RDKit's drawings use inline style attributes, hence 'unsafe-inline' for style).
IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
_SIGNATURE_HEX = 32  # 128 bits of HMAC-SHA256


def _key() -> bytes:
    key = current_app.extensions.get("depictions_key")
    if key is None:
        secret = str(current_app.config["SECRET_KEY"]).encode()
        key = current_app.extensions["depictions_key"] = hashlib.sha256(
            b"share-viewer depictions\0" + secret).digest()
    return key


def sign(link_id: str, smiles: str, highlight: str | None, size: str) -> str:
    """Return the HMAC signature of a depiction of ``smiles`` on a page of ``link_id``."""
    message = "\0".join((link_id, smiles, highlight or "", size)).encode()
    return hmac.new(_key(), message, hashlib.sha256).hexdigest()[:_SIGNATURE_HEX]


def depiction_url(link_id: str, smiles: str, highlight: str | None = None,
                  size: str = "row") -> str:
    """Return the signed URL of the depiction of ``smiles`` for a page of ``link_id``.

    The route's path is built by ``url_for`` once per link and request and the rest by
    hand: a 100-row table asks for 100 URLs, and ``url_for`` each time was most of the
    cost the depictions added to the page.
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


def molecule_html(link_id: str, smiles: str | None, highlight: str | None = None,
                  size: str = "row", caption: bool = False) -> str:
    """Return the markup of a molecule: its depiction, or its text and a note.

    Never a blank box: a SMILES RDKit cannot draw shows as text with "could not be
    drawn". ``caption`` puts the SMILES under the drawing (the results tables).
    """
    smiles = smiles or ""
    width, height = depict.SIZES[size]
    text = escape(smiles)
    if not depict.drawable(smiles):
        note = "no SMILES" if not smiles else "could not be drawn"
        return (f'<figure class="mol mol-{size} mol-undrawn">'
                f'<code class="smiles">{text}</code>'
                f'<figcaption class="mol-note">Structure {note}</figcaption></figure>')
    url = escape(depiction_url(link_id, smiles, highlight, size))
    alt = "2D structure" if caption else f"2D structure of {smiles}"
    image = (f'<img src="{url}" width="{width}" height="{height}" loading="lazy" '
             f'decoding="async" alt="{escape(alt)}">')
    tail = f'<figcaption class="smiles">{text}</figcaption>' if caption else ""
    return f'<figure class="mol mol-{size}">{image}{tail}</figure>'


def molecule(link_id: str, smiles: str | None, highlight: str | None = None,
             size: str = "row") -> Markup:
    """The ``molecule`` macro's body (``templates/share/_partials/molecule.html``)."""
    return Markup(molecule_html(link_id, smiles, highlight, size))  # noqa: S704 - escaped


@bp.get("/share/<link_id>/depictions/<signature>.svg")
def depiction(link_id: str, signature: str):
    """Draw a depiction a page of this link emitted (signed URL), for a live link."""
    smiles = request.args.get("smiles", "")
    highlight = request.args.get("highlight") or None
    size = request.args.get("size", "row")
    expected = sign(link_id, smiles, highlight, size)
    # As bytes: compare_digest refuses str with non-ASCII characters (a TypeError, a 500).
    if size not in depict.SIZES or not hmac.compare_digest(signature.encode(),
                                                             expected.encode()):
        raise LinkNotFound()
    try:
        load_share(link_id)
    except (LinkNeedsSignIn, LinkForbidden):
        raise LinkNotFound() from None  # an image cannot follow the sign-in flow
    drawing = depict.svg(smiles, highlight, size)
    if drawing is None:  # pages link only drawable SMILES; a stale URL may not be
        raise LinkNotFound()
    security.serve_as_image(IMAGE_CSP, MAX_AGE)
    return Response(drawing, mimetype="image/svg+xml")


def init_app(app: Flask) -> None:
    """Offer ``depiction_url``, ``molecule_figure`` and ``computed_properties`` to templates."""
    app.jinja_env.globals.update(depiction_url=depiction_url, molecule_figure=molecule,
                                 computed_properties=properties.table)
