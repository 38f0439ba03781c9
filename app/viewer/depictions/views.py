"""The depiction route: ``/share/<link_id>/depictions/<signature>.svg``, an SVG drawing.

It draws only what a page of that link emitted (``signing``): a URL whose signature does
not match is the shared 404. The link itself is checked through the API like every page
(``load_share``): an archived or expired link is the same 404, and an email link without
a session is a 404 too (an image cannot follow a sign-in redirect).

Caching: the body is a pure function of the signed URL, so it may stay in the visitor's
own browser cache (``private``, never a shared cache: the URL holds the share id) for
``MAX_AGE`` seconds. A day covers a working session and the next morning's visit; the
link being revoked meanwhile only means the visitor keeps a drawing of a SMILES they were
already shown. Pages themselves stay ``no-store``.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from app.viewer.chem import depict
from app.viewer.core.errors import LinkForbidden, LinkNeedsSignIn, LinkNotFound
from app.viewer.core.loaders import load_share
from app.viewer.depictions.signing import signature_matches
from app.viewer.web import security

bp = Blueprint("depictions", __name__)

MAX_AGE = 86400
# An SVG shown through <img> runs no script anyway; opened directly, this policy keeps
# it so (RDKit's drawings use inline style attributes, hence 'unsafe-inline' for style).
IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


@bp.get("/share/<link_id>/depictions/<signature>.svg")
def depiction(link_id: str, signature: str):
    """Draw a depiction a page of this link emitted (signed URL), for a live link."""
    smiles = request.args.get("smiles", "")
    highlight = request.args.get("highlight") or None
    size = request.args.get("size", "row")
    if size not in depict.SIZES or not signature_matches(signature, link_id, smiles,
                                                         highlight, size):
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
