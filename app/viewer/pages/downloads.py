"""Artifact downloads, streamed from the presigned URL the API returned, in constant memory.

The viewer never takes a URL from the visitor: ``core.artifacts`` asks the API for the
result or the prediction, follows only the URL the API gave and asks once more if its
signature expired. The body is relayed chunk by chunk, so a 256 MiB file costs a worker a
few hundred KiB, whatever its size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
from flask import Blueprint, Response, request

from app import domain
from app.viewer.core.api_client import CHUNK_SIZE
from app.viewer.core.artifacts import Locate, open_artifact, prediction_locator, result_locator
from app.viewer.core.errors import LinkNotFound, RangeNotSatisfiable
from app.viewer.core.filenames import safe_filename
from app.viewer.core.loaders import check_ids
from app.viewer.core.prefetch import prefetched
from app.viewer.runtime import work_gate
from app.viewer.web.stalls import drop_when_stalled

bp = Blueprint("downloads", __name__)

_EXTENSIONS = {
    "application/zip": "zip",
    "chemical/x-mmcif": "cif",
    "chemical/x-cif": "cif",
    "chemical/x-mdl-sdfile": "sdf",
    "chemical/x-pdb": "pdb",
    "application/json": "json",
    "text/plain": "txt",
    "text/csv": "csv",
}
_DEFAULT_EXTENSIONS = {"archive": "zip", "structure": "cif", "ligand_structure": "cif"}
_UPSTREAM_FILENAME = re.compile(r"""filename\*?=(?:UTF-8''|")?([^";]+)""", re.IGNORECASE)
_SIMPLE_RANGE = re.compile(r"bytes=\d{1,15}-\d{0,15}")


def _filename(response: httpx.Response, preferred: str | None, stem: str, role: str) -> str:
    """Choose the download's name: the API's, the upstream's, or ``<stem>.<ext>``."""
    if preferred:
        return safe_filename(preferred, stem)
    match = _UPSTREAM_FILENAME.search(response.headers.get("content-disposition", ""))
    if match:
        return safe_filename(match.group(1), stem)
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    extension = _EXTENSIONS.get(content_type) or _DEFAULT_EXTENSIONS.get(role, "bin")
    return f"{stem}.{extension}"


def _relayed_headers(artifact: dict, upstream: httpx.Response, stem: str, role: str) -> dict:
    """Return the download's headers: type and name from the API, the rest from upstream."""
    headers = {
        "Content-Type": artifact.get("content_type")
        or upstream.headers.get("content-type", "application/octet-stream"),
        "Content-Disposition": 'attachment; filename="{}"'.format(
            _filename(upstream, artifact.get("filename"), stem, role)
        ),
    }
    partial = upstream.status_code == 206
    for name in ("content-length", "content-encoding", "last-modified", "etag",
                 "accept-ranges", *(("content-range",) if partial else ())):
        if name in upstream.headers:
            headers[name.title()] = upstream.headers[name]
    return headers


# A download up to this size takes a visitor who reads it no longer than a page does
# (the 3D page's own structure file, a ligand): it is not counted by the work gate, so a
# page that fetches several files at once never meets "busy". Larger ones (or of unknown
# size) are, like exports. Either is dropped when its visitor stops reading (web.stalls).
SMALL_DOWNLOAD_BYTES = 1024 * 1024


def _holds_a_thread(upstream: httpx.Response) -> bool:
    """Whether relaying ``upstream`` is a large download (over ``SMALL_DOWNLOAD_BYTES``, or
    of unknown size)."""
    declared = upstream.headers.get("content-length", "")
    return not declared.isdigit() or int(declared) > SMALL_DOWNLOAD_BYTES


def _stream(locate: Locate, stem: str, role: str) -> Response:
    """Relay the artifact that ``locate()`` describes (``url``, maybe ``filename``...).

    ``locate`` asks the API each time it is called, so a second call after an expired
    signature gets a fresh URL.
    """
    stack = ExitStack()
    # Only a single simple byte range is passed on (resuming a download); anything else
    # gets the whole file, which is always a correct answer to a Range request.
    wanted = request.headers.get("Range", "")
    wanted = wanted if _SIMPLE_RANGE.fullmatch(wanted) else None
    try:
        artifact, upstream = open_artifact(stack, locate, byte_range=wanted)
        if _holds_a_thread(upstream):
            # Admitted (or Busy, a 503) before a byte is sent; held until the answer is
            # closed: a large download holds a thread for as long as it streams.
            stack.callback(work_gate.enter("download"))
    except RangeNotSatisfiable:
        stack.close()
        return Response(status=416, headers={"Accept-Ranges": "bytes"})
    except BaseException:
        stack.close()
        raise
    headers = _relayed_headers(artifact, upstream, stem, role)
    partial = upstream.status_code == 206

    def body() -> Iterator[bytes]:
        try:
            # The next chunks are read from upstream while this one is being sent.
            yield from prefetched(upstream.iter_raw(CHUNK_SIZE))
        finally:
            stack.close()

    # Not direct_passthrough: werkzeug would then hand the bare iterable to the server and
    # drop the close callback below. Not stream_with_context either: relaying bytes needs
    # no request context, and holding one open for minutes would pin the request's
    # resources (and trip context-order checks when a visitor abandons the download).
    response = Response(drop_when_stalled(body()), status=206 if partial else 200,
                        headers=headers)
    # Closed when the WSGI server is done with the response, also for HEAD requests and
    # visitors who hang up before the body starts, so the upstream is never leaked.
    response.call_on_close(stack.close)
    return response


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/artifacts/<name>")
def result_artifact(link_id: str, pipeline_id: str, result_id: str, name: str):
    """Stream one artifact of a result (archive, structure or ligand_structure)."""
    if name not in domain.RESULT_ROLES:
        raise LinkNotFound()
    check_ids(link_id, pipeline_id, result_id)
    return _stream(result_locator(link_id, pipeline_id, result_id, name),
                           f"{result_id}-{name}", name)


@bp.get("/share/<link_id>/predictions/<prediction_id>/artifacts/<name>")
def prediction_artifact(link_id: str, prediction_id: str, name: str):
    """Stream one artifact of a prediction, by its name."""
    check_ids(link_id, prediction_id)
    return _stream(prediction_locator(link_id, prediction_id, name),
                           f"{prediction_id}-{safe_filename(name, 'artifact')}", name)

