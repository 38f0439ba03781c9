"""What can go wrong when the viewer asks the compute API, as typed exceptions.

The viewer's error pages (``error_pages``) turn each into a page: 404 for anything gone or
not covered, the sign-in flow for 401, an access-denied page for 403, 400 for a bad query,
and 502/503/504 when the API is down, failing or slow (``Retry-After``:
``web.retry.UNAVAILABLE_SECONDS``). ``Retryable`` is the viewer's own "not now": work not
admitted or not finished yet, a 503 with the ``Retry-After`` it carries.
"""

from __future__ import annotations

import httpx


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
    """What the visitor asked cannot be answered: the message says why, naming the value.

    Raised by the viewer's own checks of a query string (``paging``, ``explore.query``,
    ``chem.substructure``, a prediction's ``sort``, a 3D page's ``sample``) and for the
    API's 400/422. ``web.error_pages`` answers it once for every route: the 400 page, or
    ``{"error": message}`` for the JSON the browser reads.
    """

    status = 400

    def __init__(self, message: str = "Bad request"):
        super().__init__(message)
        self.message = message


class TooLarge(BadRequest):
    """A file the link exposes is too large for the viewer to read (422).

    The message names the file, its size and the limit; answered like ``BadRequest``
    (the error page, or ``{"error": message}`` for the JSON the browser reads).
    """

    status = 422


class RunDataDeleted(ApiError):
    """The link is valid, but retention deleted this run's data (410, ``pages.deleted``).

    Raised by the loaders for a pipeline or prediction whose record has
    ``data_deleted_at``: its pages say what was deleted and when, not the shared 404.
    """

    status = 410

    def __init__(self, link_id: str, record: dict, kind: str):
        super().__init__("run data deleted under retention")
        self.link_id, self.record, self.kind = link_id, record, kind  # pipeline | prediction


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


class Retryable(Exception):
    """Not now, later: the page answers ``status`` (503) with ``Retry-After``.

    ``retry_after`` is in seconds. ``reason`` names what the 503 page says (``busy``: too
    much heavy work at once; ``counting``: a count still running; None: ``message`` alone);
    ``details`` join the JSON answer the browser reads (``{"error": message, **details}``).
    """

    def __init__(self, message: str, *, retry_after: int, reason: str | None = None,
                 status: int = 503, details: dict | None = None):
        super().__init__(message)
        self.message, self.retry_after, self.reason = message, retry_after, reason
        self.status, self.details = status, details or {}


def raise_for_status(response: httpx.Response) -> None:
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
