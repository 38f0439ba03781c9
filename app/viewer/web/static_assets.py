"""Static files served fast: fingerprinted URLs, immutable caching, precompressed variants.

Every ``url_for('static', filename=...)`` gets ``?v=<first 12 hex of the file's sha256>``
(``app.url_defaults``). The digest is computed once per file version per process: it is
kept keyed by the file's (mtime, size), so a deploy that changes a file changes its URL.

A request whose ``v`` matches the file's digest is answered with ``Cache-Control: public,
max-age=31536000, immutable``: the browser never asks again for that URL. Any other
request (no ``v``, an old one) gets ``no-cache`` with an ETag, so it revalidates (304).
Static files hold no secret (no share id in their URLs), so public caching is right.

Text files (``precompress.TEXT_SUFFIXES``) are answered with their brotli or gzip variant
when ``Accept-Encoding`` allows (``Vary: Accept-Encoding``, the variant's own length and
ETag); a ``Range`` request is answered on the identity bytes, so byte offsets always mean
the same thing. Variants are files made once per version (``precompress``), never per
request.
"""

from __future__ import annotations

import base64
import hashlib
import mimetypes
import os
from pathlib import Path

from flask import Flask, Response, current_app, request, send_file, url_for
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.exceptions import NotFound
from werkzeug.security import safe_join

from app.viewer.web import precompress

# One year: the longest max-age caches honour; "immutable" stops reload revalidation.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
FINGERPRINT_LENGTH = 12
# The import map's script text per (URL prefix, module listing): ``_import_map_text``.
_import_maps: dict[tuple, str] = {}
def _source(app: Flask, filename: str) -> Path | None:
    """Return the static file ``filename`` names, or None (missing, or outside the folder)."""
    joined = safe_join(str(app.static_folder or ""), filename)
    if joined is None:
        return None
    path = Path(joined)
    return path if path.is_file() else None


def fingerprint(app: Flask, filename: str) -> str | None:
    """Return the ``v`` value of a static file's URL, or None when there is no such file."""
    path = _source(app, filename)
    return precompress.file_digest(path)[:FINGERPRINT_LENGTH] if path else None


def _accepts(encoding: str) -> bool:
    return request.accept_encodings[encoding] > 0


def _variant(path: Path, digest: str) -> tuple[Path, str | None]:
    """Pick the file to send and its Content-Encoding for this request."""
    size = path.stat().st_size
    if "Range" in request.headers or not precompress.compressible(path, size):
        return path, None
    folder = precompress.cache_dir(current_app)
    try:
        if _accepts("br"):
            chosen = precompress.brotli_variant(folder, path, digest)
            if chosen is not None:
                return chosen, "br"
        if _accepts("gzip"):
            return precompress.gzip_variant(folder, path, digest), "gzip"
    except OSError:
        current_app.logger.warning("static cache folder not writable; sending identity")
    return path, None


def serve_static(filename: str) -> Response:
    """Send a static file: the right variant, and a cache policy that fits its URL."""
    path = _source(current_app, filename)
    if path is None:
        raise NotFound()
    digest = precompress.file_digest(path)
    short = digest[:FINGERPRINT_LENGTH]
    chosen, encoding = _variant(path, digest)
    mimetype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    etag = short if encoding is None else f"{short}-{encoding}"
    response = send_file(chosen, mimetype=mimetype, etag=etag, conditional=False,
                         last_modified=path.stat().st_mtime, max_age=None)
    # Identity answers Range; a compressed variant never does (its offsets would differ).
    response = response.make_conditional(request.environ, accept_ranges=encoding is None,
                                          complete_length=chosen.stat().st_size)
    if encoding is not None and response.status_code != 304:
        response.headers["Content-Encoding"] = encoding
    if precompress.compressible(path, path.stat().st_size):
        response.vary.add("Accept-Encoding")
    fresh = request.args.get("v") == short
    response.headers["Cache-Control"] = IMMUTABLE if fresh else REVALIDATE
    return response


# ES modules that page scripts import (``import ... from "./results/x.js"``): the browser
# asks for them by their plain URL, which is only revalidated, never cached for a year.
# The page's import map sends each to its fingerprinted URL instead.
IMPORTED_MODULES = "js/results"


def module_import_map() -> dict:
    """Return the import map of the shared modules: plain URL -> fingerprinted URL."""
    folder = Path(current_app.static_folder or "") / IMPORTED_MODULES
    imports = {}
    for path in sorted(folder.glob("*.js")):
        versioned = url_for("static", filename=f"{IMPORTED_MODULES}/{path.name}")
        imports[versioned.split("?", 1)[0]] = versioned
    return {"imports": imports}


def _import_map_text() -> str:
    """Return the import map's script text, made once per module set and URL prefix.

    Keyed by the modules' names, sizes and times (a deploy that changes one changes its
    fingerprint) and the app's URL prefix: the same bytes on every page and request.
    """
    folder = Path(current_app.static_folder or "") / IMPORTED_MODULES
    listing = tuple(sorted((entry.name, entry.stat().st_mtime_ns, entry.stat().st_size)
                           for entry in os.scandir(folder) if entry.name.endswith(".js"))
                    ) if folder.is_dir() else ()
    key = (request.script_root, listing)
    text = _import_maps.get(key)
    if text is None:
        text = _import_maps[key] = str(htmlsafe_json_dumps(module_import_map()))
    return text


def import_map_script() -> Markup:
    """Return the page's ``<script type="importmap">`` element (no nonce: its hash is in
    every page's CSP, ``import_map_csp_source``, so a page's markup is the same for every
    request and can be kept whole: ``results.page_cache``)."""
    # The text is htmlsafe JSON (no "<", ">", "&" or "'" in it): safe inside <script>.
    return Markup(f'<script type="importmap">{_import_map_text()}</script>')  # noqa: S704


def import_map_csp_source() -> str:
    """Return the CSP source that allows the import map: ``'sha256-<base64>'``."""
    digest = hashlib.sha256(_import_map_text().encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def init_app(app: Flask) -> None:
    """Fingerprint static URLs, serve ``/static`` through ``serve_static``, add the command."""
    app.jinja_env.globals["import_map_script"] = import_map_script

    @app.url_defaults
    def _fingerprint(endpoint: str, values: dict) -> None:
        if endpoint == "static" and "v" not in values and "filename" in values:
            short = fingerprint(app, values["filename"])
            if short:
                values["v"] = short

    app.view_functions["static"] = serve_static
    app.cli.add_command(precompress.compress_static_command)
