"""Embedding: the "Copy embed code" / "Open full view" links, and framed normal pages.

Pages that make sense in an iframe (``EMBEDDABLE``) show, through ``templates/base.html``,
either "Copy embed code" (the page's ``?embed=1`` URL in an ``<iframe>`` plus the host
snippet that sizes it) or, when embedded, "Open full view" (the same URL without
``embed=1``, in a new tab). ``static/js/embed.js`` tells the host page its height.

A normal page that a browser loads into a frame anyway (``Sec-Fetch-Dest: iframe`` and no
``embed=1``) is answered with a short notice saying to use ``?embed=1``, which may be
framed (by ``FLASK_EMBED_FRAME_ANCESTORS``) and shows nothing of the link; every other
response keeps ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` (``security``).
Browsers without Fetch Metadata refuse the page (``frame-ancestors 'none'``).

"Copy embed code" is offered only on a public link's pages (``core.link_access``): a frame
of an email-mode link shows everyone else a sign-in form, so its pages say that instead.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, g, render_template, request
from werkzeug.datastructures import MultiDict
from werkzeug.urls import urlencode

from app.viewer.signin import link_access
from app.viewer.web.security import is_embed

# Endpoints (last part of the name, any blueprint) whose pages offer embedding.
EMBEDDABLE = frozenset({"pages.overview", "results.pipeline_results", "pages.result",
                        "structure.result_structure", "pages.prediction",
                        "structure.prediction_structure", "results.plot", "structure.compare"})
_FRAME_DESTINATIONS = ("iframe", "frame")


def page_url(embed: bool) -> str:
    """Return this page's absolute URL with ``embed=1`` added (True) or removed (False)."""
    args = MultiDict(request.args)
    args.pop("embed", None)
    if embed:
        args["embed"] = "1"
    query = urlencode(args)
    return request.base_url + (f"?{query}" if query else "")


def embed_tools() -> dict | None:
    """Return the URLs of the embed links for this page, or None when it offers none."""
    if request.endpoint not in EMBEDDABLE or not (request.view_args or {}).get("link_id"):
        return None
    if g.get("no_embed_tools"):  # a sign-in or no-access page answered at this URL
        return None
    embed_url = page_url(embed=True)
    parts = urlsplit(embed_url)
    return {"embed_url": embed_url, "full_url": page_url(embed=False),
            "origin": f"{parts.scheme}://{parts.netloc}", "access": link_access.current()}


def _framed_normal_page():
    """Answer a framed request for a normal page with the notice (see the docstring)."""
    if request.method != "GET" or is_embed() or not request.path.startswith("/share/"):
        return None
    if request.headers.get("Sec-Fetch-Dest", "").lower() not in _FRAME_DESTINATIONS:
        return None
    g.framed_notice = True
    body = render_template("embed_notice.html", embed=True, full_url=page_url(embed=False),
                           embed_url=page_url(embed=True))
    # Vary: a cache must not hand this notice to a top-level visit, nor the page to a frame.
    return body, 200, {"Vary": "Sec-Fetch-Dest"}


def init_app(app: Flask) -> None:
    """Install the framed-page notice and the ``embed_tools``/``link_access`` helpers."""
    app.before_request(_framed_normal_page)

    @app.context_processor
    def _helpers() -> dict:
        return {"embed_tools": embed_tools, "link_access": link_access.current}
