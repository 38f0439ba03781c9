"""Capability-URL hygiene for every response of the viewer app.

A share URL is a secret (W3C TAG, "Good Practices for Capability URLs"), so every viewer
response tells browsers, caches and crawlers not to pass it on or keep it:
``Referrer-Policy: no-referrer``, ``Cache-Control: no-store``, ``X-Robots-Tag: noindex``,
``X-Content-Type-Options: nosniff`` and a strict Content-Security-Policy: scripts are
external files from this origin; the one inline script, the results pages' import map,
is allowed by its SHA-256 (``static_assets.import_map_csp_source``), not by a nonce per
request, so a page's markup depends only on what it shows (``results.page_cache`` keeps
whole pages) and every 404 carries the same policy. Only ``?embed=1``
pages may be framed, by the origins in ``FLASK_EMBED_FRAME_ANCESTORS``; every other page
says ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``.
"""

from __future__ import annotations

from flask import Flask, Response, g, request, url_for

from app.platform.settings import setting
from app.viewer.web.static_assets import import_map_csp_source

# default-src 'none' means: anything not listed here (fonts from other hosts, beacons,
# third-party scripts) is refused by the browser, which doubles as a check in the
# browser tests that pages make no third-party request.
_CSP = (
    "default-src 'none'; script-src 'self' {scripts}; style-src 'self'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors {ancestors}"
)


# The Mol* page only: Mol* compiles code with ``new Function`` ('unsafe-eval'), and its
# React UI and WebGL canvas need inline styles and blob: images. Scripts still come only
# from this origin (no inline script but the import map, by its hash), and nothing may be
# fetched from another host; every other page keeps the strict policy above. (Our Mol*
# build has no WebAssembly module and needs no data: URL: docs/viewer.md.)
_STRUCTURE = (
    _CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'")
    .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    .replace("img-src 'self' data:", "img-src 'self' data: blob:")
)


def is_embed() -> bool:
    """Return whether this request asked for embed mode (``?embed=1``)."""
    return request.args.get("embed") == "1"


def share_url(endpoint: str, **values) -> str:
    """Build a URL like ``url_for`` and keep ``embed=1`` when the page is embedded."""
    if is_embed():
        values.setdefault("embed", 1)
    return url_for(endpoint, **values)


def allow_structure_viewer() -> None:
    """Relax the policy of this response for the Mol* viewer page (see ``_STRUCTURE``)."""
    g.csp_structure_viewer = True


def serve_as_image(policy: str, max_age: int) -> None:
    """Mark this response as a same-origin image (depictions): its own CSP, private cache.

    The body must be a pure function of its URL: it may then stay ``max_age`` seconds in
    the visitor's own cache (``private``: never a shared one, the URL holds a share id).
    """
    g.image_response = (policy, max_age)


def _frame_ancestors(app: Flask) -> str:
    configured = setting(app, "EMBED_FRAME_ANCESTORS")
    # An empty (or null) setting means nobody, which CSP spells 'none'.
    return configured.strip() if configured and configured.strip() else "'none'"


def apply_headers(app: Flask, response: Response) -> Response:
    """Set the hygiene headers on a viewer response."""
    headers = response.headers
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["X-Robots-Tag"] = "noindex, nofollow"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    headers["Permissions-Policy"] = "camera=(), microphone=(), geolocation=(), interest-cohort=()"
    if not request.path.startswith("/static/"):
        # Static files carry no secret and may be revalidated; pages never stored.
        headers["Cache-Control"] = "no-store"
        headers["Pragma"] = "no-cache"
    # The "use ?embed=1" notice of a framed normal page may be framed too (app.viewer.embeds).
    embed = is_embed() or bool(g.get("framed_notice"))
    ancestors = _frame_ancestors(app) if embed else "'none'"
    policy = _STRUCTURE if g.get("csp_structure_viewer") else _CSP
    headers["Content-Security-Policy"] = policy.format(scripts=import_map_csp_source(),
                                                       ancestors=ancestors)
    image = g.get("image_response")
    if image is not None and response.status_code == 200:
        headers["Content-Security-Policy"] = image[0]
        headers["Cache-Control"] = f"private, max-age={image[1]}"
        headers.pop("Pragma", None)
    if embed:
        headers.pop("X-Frame-Options", None)
    else:
        headers["X-Frame-Options"] = "DENY"
    return response


def init_app(app: Flask) -> None:
    """Install the header hook and the template context (embed flag, share_url)."""

    @app.after_request
    def _hygiene(response: Response) -> Response:
        return apply_headers(app, response)

    @app.context_processor
    def _context() -> dict:
        return {
            "embed": is_embed(),
            "share_url": share_url,
            "product_name": setting(app, "PRODUCT_NAME"),
        }
