"""Reading a small artifact whole, for pages that show what is inside it (3D, PAE).

Like ``downloads``, only the presigned URL the API gives is followed (``locate()`` asks
the API; a visitor never supplies a URL), and an expired signature is retried once with a
fresh URL. A file larger than ``limit`` is not read: the caller shows the page without
what it would have computed from it.
"""

from __future__ import annotations

from collections.abc import Callable

from app.viewer.core.api_client import CHUNK_SIZE, api
from app.viewer.core.errors import LinkNotFound

STRUCTURE_LIMIT = 64 * 1024 * 1024
ARCHIVE_LIMIT = 64 * 1024 * 1024


def read_artifact(locate: Callable[[], dict], limit: int,
                  known: dict | None = None) -> bytes | None:
    """Return the bytes of the artifact ``locate()`` describes, or None beyond ``limit``.

    ``known`` is the artifact as the API just gave it (saves asking again); its URL is
    tried first and ``locate()`` gives a fresh one if that signature has expired.
    """
    url = (known or {}).get("url")
    if url:
        try:
            return _read(url, limit)
        except LinkNotFound:
            pass  # an expired signature: ask for a fresh URL below
    return _read(locate()["url"], limit)


def _read(url: str, limit: int) -> bytes | None:
    with api().open_download(url) as response:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            return None
        parts, size = [], 0
        for chunk in response.iter_bytes(CHUNK_SIZE):
            size += len(chunk)
            if size > limit:
                return None
            parts.append(chunk)
    return b"".join(parts)
