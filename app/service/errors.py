"""The one JSON error envelope of the compute API, and the exceptions that produce it.

Every error under ``/compute/v1`` (validation, auth, unknown routes, wrong methods,
oversized bodies, unexpected exceptions) answers
``{"statusCode": 400, "error": "Bad Request", "message": "..."}``.

A database that does not answer (down, restarting, dropping connections), also when the
request's commit fails, answers the envelope with 503 and ``Retry-After``, logged as one
line without a traceback: a client should retry, and an operator learns what happened
without a thousand tracebacks of the same outage.
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from app.platform.base_app import RETRY_AFTER_SECONDS
from app.platform.db import DatabaseError, describe, is_unavailable, rollback_conn

log = logging.getLogger(__name__)

# The byte-identical body for every "no such link / not covered / gone" answer.
NOT_FOUND_MESSAGE = "Not found"
# Every API answer may name a secret (a full key, a share URL, a link id in an error's
# context): no shared cache keeps it, and nothing it links to learns where it came from.
PRIVATE_HEADERS = {"Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer"}


class ApiError(Exception):
    """An error answered with the JSON envelope."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def bad_request(message: str) -> ApiError:
    """Return a 400 error; the message should name the offending field."""
    return ApiError(400, message)


def unauthorized(message: str = "A valid API key is required (x-api-key header)") -> ApiError:
    """Return a 401 error."""
    return ApiError(401, message)


def forbidden(message: str) -> ApiError:
    """Return a 403 error."""
    return ApiError(403, message)


def not_found() -> ApiError:
    """Return the 404 that unknown, foreign, gone and uncovered things all share."""
    return ApiError(404, NOT_FOUND_MESSAGE)


def envelope(status: int, message: str, headers: dict | None = None) -> Response:
    """Build the JSON error response."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    response = jsonify({"statusCode": status, "error": phrase, "message": message})
    response.status_code = status
    response.headers.update(PRIVATE_HEADERS)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def init_app(app: Flask) -> None:
    """Answer every error of the service app with the envelope: it serves only the API.

    Every answer, success or error, gets ``PRIVATE_HEADERS`` unless the view chose its own.
    """

    @app.after_request
    def _private(response: Response) -> Response:
        for name, value in PRIVATE_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        return envelope(error.status, error.message, error.headers)

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        message = {
            404: "No such endpoint",
            405: f"Method {request.method} is not allowed on this endpoint",
            413: "Request body is too large",
        }.get(error.code or 500, error.description or "Error")
        headers = {}
        if error.code == 405 and getattr(error, "valid_methods", None):
            headers["Allow"] = ", ".join(error.valid_methods)
        return envelope(error.code or 500, message, headers)

    @app.errorhandler(DatabaseError)
    def _database_error(error: DatabaseError):
        if not is_unavailable(error):
            return _unexpected(error)
        # The endpoint, not the path: paths carry share ids.
        log.warning("database unavailable (%s %s): %s", request.method, request.endpoint,
                    describe(error))
        rollback_conn()
        return database_unavailable()

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        log.exception("unhandled error")
        # Whatever the request wrote before failing must not be committed at teardown.
        rollback_conn()
        return envelope(500, "Internal error; the request was not completed")


def database_unavailable() -> Response:
    """Return the 503 envelope of a database that does not answer, with ``Retry-After``."""
    return envelope(503, "The database is unavailable; try again shortly",
                    {"Retry-After": str(RETRY_AFTER_SECONDS)})
