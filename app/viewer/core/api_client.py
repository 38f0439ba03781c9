"""The viewer's only way to data: an httpx client of the compute API.

``remote(url)`` talks HTTP to a deployment (``FLASK_COMPUTE_API_URL``); ``embedded(service)``
calls a service app object in-process through ``httpx.WSGITransport`` (what ``create_app``
hands its viewer, built once, up front). The viewer and the service are separate app
objects, so a nested request never shares the outer request's ``g``.

A page has one deadline, not one per call: ``FLASK_COMPUTE_API_TIMEOUT`` seconds from its
first API call, kept in ``g``. Every later call of the same request gets only what remains
(as its httpx timeout and as the bound on reading its body), so a page that makes four
calls to a slow API still answers (504) within about that timeout. A download is exempt
once its body starts (a large file streams for minutes), and a streamed export starts a
fresh deadline for each further page it reads (``restart_deadline``). Failures become the
typed exceptions of ``api_errors``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx
import pydantic_core
from flask import Flask, current_app, g, has_request_context
from werkzeug.wsgi import FileWrapper

from app.platform import request_ids
from app.platform.base_app import IN_PROCESS_KEY
from app.platform.metrics.registry import API_CALLS, API_SECONDS
from app.platform.settings import setting
from app.viewer.core.errors import (
    ApiTimeout,
    ApiUnavailable,
    LinkNotFound,
    RangeNotSatisfiable,
    raise_for_status,
)
from app.viewer.core.records import UNREADABLE_RECORDS, readable_page
from app.viewer.core.tls import tls_context

EMBEDDED_BASE_URL = "http://compute.internal"
# Relay presigned downloads in chunks this big: large enough for throughput, small enough
# that a worker streaming many files stays in constant, small memory.
CHUNK_SIZE = 1024 * 1024
# Where a request keeps the monotonic time by which its API calls must be done.
_DEADLINE_KEY = "compute_api_deadline"
# A readiness probe must answer quickly whatever the page timeout is.
READY_TIMEOUT = 2.0


def restart_deadline() -> None:
    """Give the current request a fresh deadline, starting at its next API call.

    For a response that keeps reading the API after its body has started (a streamed
    export): each further page gets a whole timeout, not what the first page left.
    """
    if has_request_context():
        g.pop(_DEADLINE_KEY, None)


def _parse(body: bytes) -> Any:
    """Parse an API answer: pydantic-core's parser (twice ``json``'s speed on a page of
    1,000 results), ``json`` for what only it accepts (lone surrogate escapes)."""
    try:
        return pydantic_core.from_json(body)
    except ValueError:
        return json.loads(body)


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

    def _give_up_at(self) -> float:
        """Return the request's deadline (monotonic), starting it at its first call.

        Outside a request (a script, the CLI) each call has a deadline of its own.
        """
        if not has_request_context():
            return time.monotonic() + self._deadline
        give_up = g.get(_DEADLINE_KEY)
        if give_up is None:
            give_up = time.monotonic() + self._deadline
            setattr(g, _DEADLINE_KEY, give_up)
        return give_up

    def _remaining(self) -> tuple[float, float]:
        """Return the deadline and the seconds left before it; raise ApiTimeout if none."""
        give_up = self._give_up_at()
        remaining = give_up - time.monotonic()
        if remaining <= 0:
            raise ApiTimeout("compute API: the page's deadline has passed")
        return give_up, remaining

    def _get(self, path: str, bearer: str | None, params: dict | None = None,
             raw: bool = False) -> Any:
        headers = {"Accept": "application/json"}
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        request_id = request_ids.current()
        if request_id:  # the API's log lines of this page carry the page's id
            headers[request_ids.HEADER] = request_id
        # A metrics label from our own words, never the path (it holds the share id).
        call = "results" if path.endswith("/results") else "share"
        started = time.perf_counter()
        try:
            response = self._read(path, params, headers)
        except httpx.TimeoutException as error:
            API_CALLS.labels(call, "error").inc()
            raise ApiTimeout(type(error).__name__) from None
        except httpx.HTTPError as error:
            API_CALLS.labels(call, "error").inc()
            # Connection refused, reset, DNS, protocol errors: the API is not there.
            raise ApiUnavailable(502, type(error).__name__) from None
        API_SECONDS.labels(call).observe(time.perf_counter() - started)
        API_CALLS.labels(call, "error" if response.status_code >= 500 else "ok").inc()
        raise_for_status(response)
        if raw:
            return response.content
        try:
            return _parse(response.content)
        except ValueError:
            raise ApiUnavailable(502, "compute API answered something that is not JSON") from None

    def _read(self, path: str, params: dict | None, headers: dict) -> httpx.Response:
        """GET ``path`` and read its body before the page's deadline.

        httpx's timeouts bound each connect and each read, not the whole exchange: an API
        that trickles a byte a second would never trip them. Each is set to what remains
        of the page's deadline, the body is read in pieces and the clock checked between
        them, so a page waits about ``COMPUTE_API_TIMEOUT`` at most, however many calls
        it makes and whatever the API does.
        """
        give_up, remaining = self._remaining()
        with self._client.stream("GET", path, params=params, headers=headers,
                                 timeout=httpx.Timeout(remaining)) as response:
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
        raw: bool = False,
    ) -> dict | bytes:
        """Return one page of a pipeline's results through the link (``readable_page``);
        with ``raw``, its body as the API sent it, unparsed (an index build hands it to
        its child process, ``explore.index.page_child``, which reads it so itself)."""
        params: dict[str, Any] = {}
        if limit is not None:
            params["limit"] = limit
        if after_id:
            params["after_id"] = after_id
        if before_id:
            params["before_id"] = before_id
        if ids:
            params["ids"] = ",".join(ids)
        answer = self._get(f"/compute/v1/share/{_segment(link_id)}/pipelines/"
                           f"{_segment(pipeline_id)}/results", bearer, params, raw)
        return answer if raw else readable_page(answer)

    def result(self, link_id: str, pipeline_id: str, result_id: str, bearer: str | None) -> dict:
        """Return one result record, or raise LinkNotFound when the link does not show it."""
        page = self.results(link_id, pipeline_id, bearer, ids=[result_id], limit=1)
        for record in page.get("data") or []:
            if record.get("id") == result_id:
                return record
        raise LinkNotFound()

    def result_in_order(self, link_id: str, pipeline_id: str, result_id: str,
                        bearer: str | None) -> tuple[dict, str | None, str | None]:
        """Return a result record and the ids of the readable results around it (the one
        before, then two from there; LinkNotFound if the link does not show it)."""
        before = self.results(link_id, pipeline_id, bearer, before_id=result_id, limit=1)
        previous_id = before.get("last_id") if before.get("data") else None
        if before.get(UNREADABLE_RECORDS):  # the one before has no id to ask after
            after = self.results(link_id, pipeline_id, bearer, after_id=result_id, limit=1)
            return (self.result(link_id, pipeline_id, result_id, bearer), None,
                    next((r["id"] for r in after.get("data") or []), None))
        page = self.results(link_id, pipeline_id, bearer, after_id=previous_id, limit=2)
        data = page.get("data") or []
        if not data or data[0].get("id") != result_id:
            raise LinkNotFound()
        return data[0], previous_id, data[1].get("id") if len(data) > 1 else None

    def ready(self) -> None:
        """Raise ApiUnavailable unless the API's ``/readyz`` answers 200, quickly."""
        timeout = min(self._deadline, READY_TIMEOUT)
        try:
            response = self._client.get("/readyz", timeout=timeout)
        except httpx.TimeoutException as error:
            raise ApiTimeout(type(error).__name__) from None
        except httpx.HTTPError as error:
            raise ApiUnavailable(502, type(error).__name__) from None
        if response.status_code != 200:
            error = ApiUnavailable(503, f"compute API /readyz answered {response.status_code}")
            # Pass on what the API says to run (its schema missing or behind), so the
            # viewer's /readyz names the API's database rather than only "api".
            fixes = _readiness_fixes(response)
            if fixes:
                error.readiness_fix = "compute API: " + "; ".join(fixes)
            raise error

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
        # Connecting comes out of what the page has left; the body is exempt (a large
        # file streams far longer than a page may wait), each read of it bounded alone.
        _give_up, remaining = self._remaining()
        timeout = httpx.Timeout(self._deadline, connect=remaining, pool=remaining)
        client = self._client_for(url)
        if client is self._client:
            parts = urlsplit(url)
            url = parts.path + (f"?{parts.query}" if parts.query else "")
        elif not urlsplit(url).scheme:
            # A relative URL from a remote API is relative to that API's base.
            url = urljoin(f"{self._client.base_url}", url)
        try:
            with client.stream("GET", url, headers=headers, timeout=timeout) as response:
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


def _with_large_file_blocks(service: Flask):
    """Wrap the embedded service so that files it sends are read in CHUNK_SIZE blocks.

    Werkzeug reads files in 8 KiB blocks unless the server offers ``wsgi.file_wrapper``;
    gunicorn offers one (sendfile) but the in-process transport does not. Thirty-two
    thousand Python-level blocks per 256 MiB would slow every download through the viewer.
    """

    def file_wrapper(file, _block_size: int = CHUNK_SIZE):
        return FileWrapper(file, CHUNK_SIZE)

    def wsgi(environ, start_response):
        environ.setdefault("wsgi.file_wrapper", file_wrapper)
        # In-process: exempt from TRUSTED_HOSTS (its Host is EMBEDDED_BASE_URL's name).
        environ[IN_PROCESS_KEY] = True
        return service(environ, start_response)

    return wsgi


def _clients(timeout_seconds: float) -> tuple[httpx.Timeout, httpx.Limits, httpx.Client]:
    """Return the timeout, pool limits and the download client every API client uses."""
    # The pool wait is bounded too, so a page never hangs waiting for a free connection.
    timeout = httpx.Timeout(timeout_seconds, pool=timeout_seconds)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)
    download_client = httpx.Client(timeout=timeout, limits=limits, follow_redirects=False,
                                   verify=tls_context())
    return timeout, limits, download_client


def remote(base_url: str, timeout_seconds: float = 10.0) -> ComputeApi:
    """Return a client of the API deployed at ``base_url``, over HTTP."""
    timeout, limits, download_client = _clients(timeout_seconds)
    client = httpx.Client(base_url=str(base_url).rstrip("/"), timeout=timeout, limits=limits,
                          follow_redirects=False, verify=tls_context())
    return ComputeApi(client, download_client, embedded=False, deadline=timeout_seconds)


def embedded(service: Flask, timeout_seconds: float = 10.0) -> ComputeApi:
    """Return a client that calls the service app object ``service`` in-process."""
    timeout, _limits, download_client = _clients(timeout_seconds)
    transport = httpx.WSGITransport(app=_with_large_file_blocks(service),
                                    raise_app_exceptions=False)
    client = httpx.Client(base_url=EMBEDDED_BASE_URL, transport=transport, timeout=timeout)
    return ComputeApi(client, download_client, embedded=True, deadline=timeout_seconds)


def timeout_setting(config) -> float:
    """Return ``COMPUTE_API_TIMEOUT`` of a configuration, in seconds."""
    return setting(config, "COMPUTE_API_TIMEOUT")


def api() -> ComputeApi:
    """Return the API client the current viewer app was created with."""
    return current_app.extensions["compute_api"]


def _readiness_fixes(response: httpx.Response) -> list[str]:
    """Return the ``fix`` sentences of an API's ``/readyz`` answer (none if unreadable)."""
    try:
        fixes = response.json().get("fix") or {}
    except (ValueError, AttributeError):
        return []
    return [str(fix) for fix in fixes.values()] if isinstance(fixes, dict) else []
