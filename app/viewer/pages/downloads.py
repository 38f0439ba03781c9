"""Artifact downloads, streamed from the presigned URL the API returned, in constant memory.

The viewer never takes a URL from the visitor: it asks the API for the result (``ids=``
filter) or the prediction and follows only the URL the API gave. If that URL answers
403/404 (its signature expired between the two calls), it asks the API once more for a
fresh one. The body is relayed chunk by chunk, so a 256 MiB file costs a worker a few
hundred KiB, whatever its size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx
from flask import Blueprint, Response, request

from app import domain
from app.viewer.core.api_client import CHUNK_SIZE, api
from app.viewer.core.errors import LinkNotFound, RangeNotSatisfiable
from app.viewer.core.loaders import bearer, check_ids, load_prediction
from app.viewer.core.prefetch import prefetched

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
_UNSAFE = re.compile(r"[^A-Za-z0-9._\-]+")
_SIMPLE_RANGE = re.compile(r"bytes=\d{1,15}-\d{0,15}")


def safe_filename(name: str, fallback: str) -> str:
    """Keep a file name to safe characters (no paths, quotes or header tricks)."""
    name = _UNSAFE.sub("_", (name or "").rsplit("/", 1)[-1]).strip("._")
    return name[:150] or fallback


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


def stream_artifact(locate: Callable[[], dict], stem: str, role: str) -> Response:
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
        artifact = locate()
        try:
            upstream = stack.enter_context(api().open_download(artifact["url"], wanted))
        except LinkNotFound:
            artifact = locate()
            upstream = stack.enter_context(api().open_download(artifact["url"], wanted))
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
    response = Response(body(), status=206 if partial else 200, headers=headers)
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
    return stream_artifact(result_locator(link_id, pipeline_id, result_id, name),
                           f"{result_id}-{name}", name)


@bp.get("/share/<link_id>/predictions/<prediction_id>/artifacts/<name>")
def prediction_artifact(link_id: str, prediction_id: str, name: str):
    """Stream one artifact of a prediction, by its name."""
    check_ids(link_id, prediction_id)
    return stream_artifact(prediction_locator(link_id, prediction_id, name),
                           f"{prediction_id}-{safe_filename(name, 'artifact')}", name)


def result_locator(link_id: str, pipeline_id: str, result_id: str,
                   name: str) -> Callable[[], dict]:
    """Return ``locate()``: the API's record of a result's artifact ``name``, fresh URL."""
    def locate() -> dict:
        record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
        artifact = (record.get("artifacts") or {}).get(name)
        if not artifact or not artifact.get("url"):
            raise LinkNotFound()
        return artifact
    return locate


def prediction_locator(link_id: str, prediction_id: str, name: str) -> Callable[[], dict]:
    """Return ``locate()``: the API's record of a prediction's artifact ``name``."""
    def locate() -> dict:
        prediction = load_prediction(link_id, prediction_id)
        for artifact in prediction.get("artifacts") or []:
            if artifact.get("name") == name and artifact.get("url"):
                return artifact
        raise LinkNotFound()
    return locate
