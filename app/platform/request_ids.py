"""Request ids: one per request, in its ``X-Request-Id`` header, its log lines and error pages.

A recipient who reports "the page said error 503, reference 3f9c0a2b1d4e5f60" gives the
operator what to search the logs for: every log line written while the request runs starts
with ``[req 3f9c0a2b1d4e5f60]``, gunicorn's access line ends with it, and the error pages
print it.

The id is made here (16 hex digits) unless the request already carries one from a party
we trust: the viewer's in-process call to the embedded API (so the API's lines of a page
carry the page's id), or a proxy in front of us when ``FLASK_TRUSTED_PROXY_COUNT`` says
there is one. A client's own ``X-Request-Id`` is otherwise ignored: it could make a log
line look like another request's. Accepted ids are short and plain
(``[A-Za-z0-9._:-]{8,64}``), so they can neither split a log line nor carry markup.
"""

from __future__ import annotations

import logging
import re
import secrets

from flask import Flask, Response, g, has_request_context, request

from app.platform.settings import setting

HEADER = "X-Request-Id"
_PLAIN = re.compile(r"[A-Za-z0-9._:-]{8,64}")
# Set by the viewer's in-process API client (api_client.embedded); no client can forge
# an environ key that is not HTTP_*.
_IN_PROCESS_KEY = "share_viewer.in_process"


def current() -> str | None:
    """Return the id of the request being handled, or None outside a request."""
    if not has_request_context():
        return None
    if "request_id" not in g:  # an error raised before the app's first hook still gets one
        g.request_id = secrets.token_hex(8)
    return g.request_id


def _trusted_incoming(app: Flask) -> str | None:
    """Return the request's own id when it comes from a party we trust and is plain."""
    incoming = request.headers.get(HEADER, "")
    trusted = request.environ.get(_IN_PROCESS_KEY) or setting(app, "TRUSTED_PROXY_COUNT") > 0
    return incoming if trusted and _PLAIN.fullmatch(incoming) else None


def tag(record: logging.LogRecord) -> logging.LogRecord:
    """Prefix ``record``'s (already formatted) message with the request's id, if any.

    Called by the log-record factory (``app.platform.logging_setup``) after redaction, when the
    message has been formatted into ``msg`` and ``args`` emptied.
    """
    request_id = current()
    record.request_id = request_id or "-"
    if request_id and not record.args:
        record.msg = f"[req {request_id}] {record.msg}"
    return record


def init_app(app: Flask) -> None:
    """Give each request of ``app`` an id, answered in the ``X-Request-Id`` header."""

    @app.before_request
    def _assign() -> None:
        g.request_id = _trusted_incoming(app) or secrets.token_hex(8)

    @app.after_request
    def _answer(response: Response) -> Response:
        request_id = current()
        if request_id:
            response.headers[HEADER] = request_id
        return response

    @app.context_processor
    def _template_id() -> dict:
        return {"request_id": current()}
