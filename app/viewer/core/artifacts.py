"""A link's artifact files, read through the presigned URLs the API gives: the one rule.

Every reader (downloads, exports, the 3D pages) follows only a URL the API returned: a
visitor never supplies one. ``locate()`` asks the API for an artifact's record (its
``url``, maybe ``filename`` and ``content_type``); ``open_artifact`` opens that URL and,
if it answers 403/404 (the signature expired between two calls, or during a long export),
asks ``locate()`` once more for a fresh one. ``read_artifact`` reads a small file whole
for the pages that show what is inside it; a file larger than its limit is not read, and
the caller shows the page without what it would have computed from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx

from app.viewer.core import loaders
from app.viewer.core.api_client import CHUNK_SIZE, api
from app.viewer.core.errors import LinkNotFound
from app.viewer.core.prediction_files import prediction_file

STRUCTURE_LIMIT = 64 * 1024 * 1024
ARCHIVE_LIMIT = 64 * 1024 * 1024

Locate = Callable[[], dict]


def result_locator(link_id: str, pipeline_id: str, result_id: str, name: str,
                   token: Callable[[str], str | None] = loaders.bearer) -> Locate:
    """Return ``locate()``: the API's record of a result's artifact ``name``, fresh URL.

    ``token`` gives the visitor's bearer token; a long export passes one that mints a
    new token each time (the request's cached one may have expired by then).
    """
    def locate() -> dict:
        try:
            record = api().result(link_id, pipeline_id, result_id, token(link_id))
        except LinkNotFound:
            # Gone because retention deleted the run? Then say so (410), else the 404.
            loaders.load_pipeline(link_id, pipeline_id)
            raise
        artifact = (record.get("artifacts") or {}).get(name)
        if not artifact or not artifact.get("url"):
            raise LinkNotFound()
        return artifact
    return locate


def prediction_locator(link_id: str, prediction_id: str, name: str) -> Locate:
    """Return ``locate()``: a prediction's file of role ``name``, read from its ``output``
    in a fresh share read (``core.prediction_files``: the URL, a made-up file name and
    the content type of its extension)."""
    def locate() -> dict:
        found = prediction_file(loaders.load_prediction(link_id, prediction_id), name)
        if found is None:
            raise LinkNotFound()
        return found
    return locate


def open_artifact(stack: ExitStack, locate: Locate, known: dict | None = None,
                  byte_range: str | None = None) -> tuple[dict, httpx.Response]:
    """Open the artifact's URL in ``stack``; return its record and the streamed response.

    ``known`` is the artifact as the API just gave it (saves asking again); its URL is
    tried first. An URL that answers 403/404 is asked for once more with ``locate()``.
    ``byte_range`` (a visitor's simple ``Range``) is passed on.
    """
    artifact = known if (known or {}).get("url") else locate()
    try:
        return artifact, stack.enter_context(api().open_download(artifact["url"], byte_range))
    except LinkNotFound:
        artifact = locate()  # an expired signature: a fresh URL, once
        return artifact, stack.enter_context(api().open_download(artifact["url"], byte_range))


def artifact_chunks(locate: Locate, known: dict | None = None) -> Iterator[bytes]:
    """Yield the artifact's bytes in pieces of ``CHUNK_SIZE`` (see ``open_artifact``)."""
    with ExitStack() as stack:
        _artifact, response = open_artifact(stack, locate, known)
        yield from response.iter_bytes(CHUNK_SIZE)


def read_artifact(locate: Locate, limit: int, known: dict | None = None) -> bytes | None:
    """Return the bytes of the artifact ``locate()`` describes, or None beyond ``limit``."""
    with ExitStack() as stack:
        _artifact, response = open_artifact(stack, locate, known)
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
