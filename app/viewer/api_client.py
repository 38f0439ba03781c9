"""The viewer's only way to data: an httpx client of the compute API.

With ``FLASK_COMPUTE_API_URL`` set the viewer talks HTTP to that deployment. When it is
unset, requests go to the embedded service in-process through ``httpx.WSGITransport``, on
a *separately created* app object: in Flask 3.1 a nested request on the same app object
would share ``g`` (and so the outer request's database connection and identity).

Every call has a timeout (``FLASK_COMPUTE_API_TIMEOUT``) and failures become typed
exceptions that the viewer turns into pages: 404 for anything gone or not covered, the
sign-in flow for 401, an access-denied page for 403, and 502/503/504 when the API is
down, failing or slow.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx
from flask import Flask, current_app
from werkzeug.wsgi import FileWrapper

EMBEDDED_BASE_URL = "http://compute.internal"
# Relay presigned downloads in chunks this big: large enough for throughput, small enough
# that a worker streaming many files stays in constant, small memory.
CHUNK_SIZE = 1024 * 1024


class ApiError(Exception):
    """Base of the errors the API client raises; ``status`` is what the page answers."""

    status = 502


class LinkNotFound(ApiError):
    """The API answered 404: unknown, expired, archived or not covered (all the same)."""

    status = 404


class LinkNeedsSignIn(ApiError):
    """The API answered 401: an email-mode link and no (valid) verified address."""

    status = 401


class LinkForbidden(ApiError):
    """The API answered 403: the verified address is not on the link's list."""

    status = 403


class BadRequest(ApiError):
    """The API answered 400 to what the visitor asked (a bad cursor or filter)."""

    status = 400

    def __init__(self, message: str = "Bad request"):
        super().__init__(message)
        self.message = message


class RangeNotSatisfiable(ApiError):
    """The visitor asked for a byte range the file does not have (416)."""

    status = 416


class ApiUnavailable(ApiError):
    """The API is unreachable or answered 5xx (502), or said it is unavailable (503)."""

    def __init__(self, status: int = 502, detail: str = ""):
        super().__init__(detail or f"compute API unavailable ({status})")
        self.status = status


class ApiTimeout(ApiUnavailable):
    """The API did not answer within the configured timeout (504)."""

    def __init__(self, detail: str = "compute API timed out"):
        super().__init__(504, detail)


def _raise_for_status(response: httpx.Response) -> None:
    """Turn a non-2xx API answer into the matching typed exception."""
    status = response.status_code
    if status < 400:
        return
    if status == 404:
        raise LinkNotFound()
    if status == 401:
        raise LinkNeedsSignIn()
    if status == 403:
        raise LinkForbidden()
    if status in (400, 422):
        try:
            message = response.json().get("message") or "Bad request"
        except ValueError:
            message = "Bad request"
        raise BadRequest(str(message))
    if status == 503:
        raise ApiUnavailable(503, "compute API answered 503")
    if status == 504:
        raise ApiTimeout("compute API answered 504")
    # Any other status (5xx, or a 4xx we never expect) means the upstream misbehaved.
    raise ApiUnavailable(502, f"compute API answered {status}")


def _segment(value: str) -> str:
    """Quote one path segment: a ``?``, ``#`` or ``/`` in an id must not change the URL.

    Route values arrive percent-decoded, so ``/share/<id>%3Fx/sign-in`` gives the id
    ``<id>?x``; unquoted, that would read link ``<id>`` under another name (and so slip
    past limits counted per link id).
    """
    return quote(value, safe="")


class ComputeApi:
    """Typed access to the share-read endpoints of the compute API."""

    def __init__(self, client: httpx.Client, download_client: httpx.Client, embedded: bool,
                 deadline: float = 10.0):
        self._client = client
        self._download_client = download_client
        self._embedded = embedded
        self._deadline = deadline

    def _get(self, path: str, bearer: str | None, params: dict | None = None) -> Any:
        headers = {"Accept": "application/json"}
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        try:
            response = self._read(path, params, headers)
        except httpx.TimeoutException as error:
            raise ApiTimeout(type(error).__name__) from None
        except httpx.HTTPError as error:
            # Connection refused, reset, DNS, protocol errors: the API is not there.
            raise ApiUnavailable(502, type(error).__name__) from None
        _raise_for_status(response)
        try:
            return response.json()
        except ValueError:
            raise ApiUnavailable(502, "compute API answered something that is not JSON") from None

    def _read(self, path: str, params: dict | None, headers: dict) -> httpx.Response:
        """GET ``path`` and read its body within the overall deadline.

        httpx's timeouts bound each connect and each read, not the whole exchange: an API
        that trickles a byte a second would never trip them. The body is read in pieces
        and the clock checked between them, so a page waits at most about twice
        ``COMPUTE_API_TIMEOUT`` whatever the API does.
        """
        give_up = time.monotonic() + self._deadline
        with self._client.stream("GET", path, params=params, headers=headers) as response:
            body = bytearray()
            for piece in response.iter_raw():
                body += piece
                if time.monotonic() > give_up:
                    raise ApiTimeout("compute API answer too slow")
        return httpx.Response(response.status_code, headers=response.headers,
                              content=bytes(body), request=response.request)

    def share(self, link_id: str, bearer: str | None = None) -> dict:
        """Return what a link exposes (``GET /compute/v1/share/{id}``)."""
        return self._get(f"/compute/v1/share/{_segment(link_id)}", bearer)

    def results(
        self,
        link_id: str,
        pipeline_id: str,
        bearer: str | None = None,
        *,
        limit: int | None = None,
        after_id: str | None = None,
        before_id: str | None = None,
        ids: list[str] | None = None,
    ) -> dict:
        """Return one page of a pipeline's results through the link."""
        params: dict[str, Any] = {}
        if limit is not None:
            params["limit"] = limit
        if after_id:
            params["after_id"] = after_id
        if before_id:
            params["before_id"] = before_id
        if ids:
            params["ids"] = ",".join(ids)
        return self._get(
            f"/compute/v1/share/{_segment(link_id)}/pipelines/{_segment(pipeline_id)}/results",
            bearer, params,
        )

    def result(self, link_id: str, pipeline_id: str, result_id: str, bearer: str | None) -> dict:
        """Return one result record, or raise LinkNotFound when the link does not show it."""
        page = self.results(link_id, pipeline_id, bearer, ids=[result_id], limit=1)
        for record in page.get("data") or []:
            if record.get("id") == result_id:
                return record
        raise LinkNotFound()

    def _client_for(self, url: str) -> httpx.Client:
        """Pick the client that can reach a presigned URL the API returned.

        The embedded service signs URLs under its own ``/compute/v1/`` path on whatever
        host it thinks it has; those are served in-process. Anything else (object storage,
        a remote deployment) goes over the network.
        """
        if self._embedded and urlsplit(url).path.startswith("/compute/v1/"):
            return self._client
        return self._download_client

    @contextmanager
    def open_download(self, url: str, range_header: str | None = None
                      ) -> Iterator[httpx.Response]:
        """Open a streamed GET of a presigned URL; the body is read by the caller.

        ``range_header`` (the visitor's ``Range``) is passed on so that a download can
        resume. Raises LinkNotFound for 403/404 (an expired or revoked signature: the
        caller may ask the API for a fresh URL), RangeNotSatisfiable for 416, and
        ApiUnavailable/ApiTimeout otherwise.
        """
        headers = {"Range": range_header} if range_header else {}
        client = self._client_for(url)
        if client is self._client:
            parts = urlsplit(url)
            url = parts.path + (f"?{parts.query}" if parts.query else "")
        elif not urlsplit(url).scheme:
            # A relative URL from a remote API is relative to that API's base.
            url = urljoin(f"{self._client.base_url}", url)
        try:
            with client.stream("GET", url, headers=headers) as response:
                if response.status_code in (401, 403, 404, 410):
                    raise LinkNotFound()
                if response.status_code == 416:
                    raise RangeNotSatisfiable()
                if response.status_code >= 400:
                    raise ApiUnavailable(502, f"download answered {response.status_code}")
                yield response
        except httpx.TimeoutException as error:
            raise ApiTimeout(type(error).__name__) from None
        except httpx.HTTPError as error:
            raise ApiUnavailable(502, type(error).__name__) from None


def _embedded_service(app: Flask) -> Flask:
    """Create the service app object that the in-process transport calls.

    Same configuration and instance folder (so the JWT key pair the viewer signs with is
    the one the service verifies with), but its own ``g`` and request contexts.
    """
    from app import create_app

    config = {k: v for k, v in app.config.items() if k.isupper()}
    service = create_app(config)
    service.instance_path = app.instance_path
    return service


def _with_large_file_blocks(service: Flask):
    """Wrap the embedded service so that files it sends are read in CHUNK_SIZE blocks.

    Werkzeug reads files in 8 KiB blocks unless the server offers ``wsgi.file_wrapper``;
    gunicorn offers one (sendfile) but the in-process transport does not. Thirty-two
    thousand Python-level blocks per 256 MiB would halve download throughput.
    """

    def file_wrapper(file, _block_size: int = CHUNK_SIZE):
        return FileWrapper(file, CHUNK_SIZE)

    def wsgi(environ, start_response):
        environ.setdefault("wsgi.file_wrapper", file_wrapper)
        return service(environ, start_response)

    return wsgi


def build_client(app: Flask) -> ComputeApi:
    """Build the API client for ``app`` from its configuration."""
    seconds = float(app.config.get("COMPUTE_API_TIMEOUT") or 10.0)
    # The pool wait is bounded too, so a page never hangs waiting for a free connection.
    timeout = httpx.Timeout(seconds, pool=seconds)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)
    download_client = httpx.Client(timeout=timeout, limits=limits, follow_redirects=False)
    base_url = app.config.get("COMPUTE_API_URL")
    if base_url:
        client = httpx.Client(
            base_url=str(base_url).rstrip("/"), timeout=timeout, limits=limits,
            follow_redirects=False,
        )
        return ComputeApi(client, download_client, embedded=False, deadline=seconds)
    transport = httpx.WSGITransport(app=_with_large_file_blocks(_embedded_service(app)),
                                    raise_app_exceptions=False)
    client = httpx.Client(base_url=EMBEDDED_BASE_URL, transport=transport, timeout=timeout)
    return ComputeApi(client, download_client, embedded=True, deadline=seconds)


_build_lock = threading.Lock()


def api() -> ComputeApi:
    """Return the current app's API client, built once on first use (thread-safe).

    Built lazily rather than in ``init_app`` because the embedded service is itself made
    by ``create_app``: building it eagerly would recurse.
    """
    app = current_app._get_current_object()
    client = app.extensions.get("compute_api")
    if client is None:
        with _build_lock:
            client = app.extensions.get("compute_api")
            if client is None:
                client = build_client(app)
                app.extensions["compute_api"] = client
    return client
