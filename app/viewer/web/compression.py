"""Gzip for the viewer's own HTML and JSON answers, when the client accepts it.

Only a whole body already in memory is compressed (a body made with ``precompressed``
carries its gzip, made once: ``results.page_cache``; ``bench/bench_static.py`` measures a
results page's gzip). Never compressed:
streamed answers (downloads, exports: ``is_streamed`` or ``direct_passthrough``), answers
that already carry a ``Content-Encoding`` (the precompressed static files), bodies under
``MIN_SIZE``, and partial or empty answers.

BREACH (a network observer learns a secret from compressed sizes while making the victim's
browser send chosen input): the secrets on our pages are the share id and, on pages with a
form, the CSRF token. Every page's URL already contains the share id, so an attacker who
can make a browser request the page knows that secret already. The CSRF token is the one
secret worth guessing, so a response that rendered one (``g.csrf_token``, set by
Flask-WTF's ``generate_csrf``) is sent uncompressed.
"""

from __future__ import annotations

import gzip

from flask import Flask, Response, current_app, g, request

# Below ~1 KB the gzip header and the CPU cost more than the bytes saved.
MIN_SIZE = 1024
# Level 6: nearly level 9's size in much less time on HTML.
LEVEL = 6
COMPRESSED_TYPES = frozenset({"text/html", "application/json"})


def should_compress(response: Response) -> bool:
    """Whether ``response`` may be gzipped for this request."""
    if response.direct_passthrough or response.is_streamed:
        return False
    if "Content-Encoding" in response.headers or response.mimetype not in COMPRESSED_TYPES:
        return False
    if response.status_code in (204, 206, 304) or request.method == "HEAD":
        return False
    if g.get("csrf_token") is not None:
        return False  # BREACH: see the module docstring
    if request.accept_encodings["gzip"] <= 0:
        return False
    return (response.content_length or 0) >= MIN_SIZE


def precompressed(body: bytes, gzipped: bytes, mimetype: str = "text/html") -> Response:
    """Return a response of ``body`` whose gzip (``gzipped``, made at ``LEVEL``) is made
    already: ``compress`` sends it instead of compressing again, if the body is unchanged."""
    response = current_app.response_class(body, mimetype=mimetype)
    response.gzipped_body = (body, gzipped)
    return response


def compress(response: Response) -> Response:
    """Gzip ``response`` in place when ``should_compress`` says so; always add Vary."""
    if response.mimetype in COMPRESSED_TYPES and not response.is_streamed:
        response.vary.add("Accept-Encoding")
    if not should_compress(response):
        return response
    kept = getattr(response, "gzipped_body", None)
    if kept is not None and response.response == [kept[0]]:  # the body it was made of
        response.set_data(kept[1])
    else:
        response.set_data(gzip.compress(response.get_data(), compresslevel=LEVEL, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    return response


def init_app(app: Flask) -> None:
    """Compress the app's HTML and JSON answers after every other hook has run."""
    # after_request hooks run in reverse order of registration: registered first, this
    # one runs last, on the body every other hook has settled.
    app.after_request_funcs.setdefault(None, []).insert(0, compress)
