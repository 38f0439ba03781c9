"""Whole results pages kept per worker: a view of a current index, rendered once.

The default page of a pipeline (ranked, no selection) is what every visitor of a link
opens first, and a sorted or filtered view is paged back and forth; once the index is
ready a page is a pure function of what it shows. After the link's access check (the
API's share read, on every request, never cached) it costs the template: the
markup of 100 rows, the epitope strip and the filters, then gzip. So the markup and its
gzip are kept (``results.page._kept``), keyed by everything the page is made from:

- the request's URL root and query string as sent (the embed code and "Open full view"
  name the page's absolute URL: two spellings of one view, ``?page=1`` or none, are two
  pages) and ``embed=1``;
- whether the link shows test data, and the run record the API just gave (a digest of
  its JSON: status, counts, settings shown in the header);
- ``row_cache.key``: the link, the index's version and how far it was read, the kind,
  order, page, size, ``ids=`` and extra metrics; and the view's whole query string
  (filters, search, epitope residues, diverse picks);
- the epitope scan's progress (designs read, running): the strip, and the contacts
  the ``contacts=`` filters read, grow while it runs.

Only anonymous visits of protein runs are kept: no verified address (the page then has
no account box and no CSRF token, and its link was granted to anyone), and a page whose
rendering made a CSRF token is never kept; small molecules' alert badges come from a
check with a time budget (as ``row_cache``). Markup carries no per-request value: the
import map is allowed by its hash (``web.security``), not a nonce. The cache is per app
and bounded in bytes (``MAX_BYTES``), least recently used first out.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, g
from pydantic_core import to_json

from app.viewer.runtime.cache import BoundedCache
from app.viewer.web import compression

MAX_BYTES = 24 * 1024 * 1024  # ~90 pages of 100 rows (markup + gzip) per worker
MAX_PAGES = 1024  # small pages (a filter matching a few rows) are bounded by count


@dataclass(frozen=True)
class KeptPage:
    """A rendered page: its UTF-8 markup and the same bytes gzipped (``compression``)."""

    body: bytes
    gzipped: bytes

    def __len__(self) -> int:
        """Bytes this page holds in memory (``BoundedCache``'s weight)."""
        return len(self.body) + len(self.gzipped)


def _pages(app: Flask) -> BoundedCache[KeptPage]:
    pages = app.extensions.get("results_page_cache")
    if pages is None:
        pages = app.extensions.setdefault("results_page_cache",
                                          BoundedCache(MAX_PAGES, MAX_BYTES))
    return pages


def digest(value) -> bytes:
    """Return a short digest of a JSON-able value (the run record of this request)."""
    return hashlib.blake2b(to_json(value, fallback=str), digest_size=16).digest()


def get(page_key: tuple, render: Callable[[], str]) -> KeptPage:
    """Return the kept page of ``page_key``, rendering (and keeping) it on a miss.

    A page whose rendering made a CSRF token (a form for this visitor) is returned but
    not kept.
    """
    pages = _pages(current_app)
    page = pages.get(page_key)
    if page is not None:
        return page
    body = render().encode()
    page = KeptPage(body, gzip.compress(body, compresslevel=compression.LEVEL, mtime=0))
    if g.get("csrf_token") is None:
        pages.put(page_key, page)
    return page


def clear(app: Flask) -> None:
    """Forget every kept page of ``app`` (tests, benchmarks)."""
    app.extensions.pop("results_page_cache", None)
