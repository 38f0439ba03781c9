"""HTML error pages for visitors: never a stack trace, always a next step.

Every error of the viewer app becomes a page here: unknown routes, wrong methods and
unexpected exceptions, and the API client's failures raised inside views: every "gone"
answer is the same 404 page, 401/403 go through the sign-in seam, and an API that is
down, failing or slow gives 502/503/504 with a retry link. The viewer's own store down
(a restart of its database) is a 503 page too, logged as one line without a traceback;
a store without its tables (``init-db`` not run) is a 503 page that says so. A
``Retryable`` is its 503 page (or JSON) with its own ``Retry-After``; every other 502, 503
and 504 says ``web.retry.UNAVAILABLE_SECONDS``.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, render_template, request
from jinja2 import TemplateNotFound
from werkzeug.exceptions import HTTPException

from app.platform.db import DatabaseError, describe, is_unavailable
from app.platform.db_schema import is_missing_table
from app.viewer import store
from app.viewer.core import errors
from app.viewer.pages import deleted
from app.viewer.signin import seam
from app.viewer.web import retry

log = logging.getLogger(__name__)

KNOWN_PAGES = {400, 401, 403, 404, 405, 500, 502, 503, 504}
UNAVAILABLE = (502, 503, 504)


def html_error_page(status: int, message: str | None = None, *,
                    store_missing: bool = False, reason: str | None = None,
                    retry_after: int | None = None) -> Response:
    """Render ``errors/<status>.html`` (or the generic page) with that status.

    ``store_missing`` makes the 503 page say the viewer's own store has no tables (its
    operator has not run ``init-db``) instead of blaming the results service; ``reason``
    is a ``Retryable``'s (``busy``: too much heavy work at once; ``counting``: a count
    still running), which the 503 page names. The page says ``Retry-After``:
    ``retry_after`` seconds (a ``Retryable``'s), else ``web.retry.UNAVAILABLE_SECONDS``
    for a 502, 503 or 504 (something the viewer depends on did not answer).
    """
    template = f"errors/{status}.html" if status in KNOWN_PAGES else "errors/generic.html"
    context = {"status": status, "message": message, "retry_url": _retry_url(),
               "store_missing": store_missing, "busy": reason == "busy",
               "counting": reason == "counting"}
    try:
        body = render_template(template, **context)
    except TemplateNotFound:
        body = render_template("errors/generic.html", **context)
    response = Response(body, status=status, mimetype="text/html")
    if retry_after is not None:
        retry.ask_later(response, retry_after)
    elif status in UNAVAILABLE:
        retry.ask_later(response)
    return response


def _retry_url() -> str:
    """Return the path of the current page, to try it again (relative: no host leaks)."""
    query = request.query_string.decode("latin-1")
    return request.path + (f"?{query}" if query else "")


def _link_id() -> str:
    return (request.view_args or {}).get("link_id", "")


def _through_seam(answer) -> Response:
    """Let the sign-in seam answer; an ``abort(...)`` from it still gets our page.

    An exception raised inside an error handler would otherwise escape as a bare 500.
    """
    try:
        return answer(_link_id())
    except HTTPException as error:
        return html_error_page(error.code or 500)


def _not_found(_error):
    return html_error_page(404)


def _sign_in(_error):
    return _through_seam(seam.sign_in_required)


def _forbidden(_error):
    return _through_seam(seam.access_denied)


def _run_deleted(error: errors.RunDataDeleted):
    if request.path.endswith(".json"):
        return jsonify(error=deleted.MESSAGE), 410
    return deleted.page(error)


def _bad_request(error: errors.BadRequest):
    # The JSON the browser reads (explore.json, pae.json) gets JSON it can show.
    if request.path.endswith(".json"):
        return jsonify(error=error.message), error.status
    return html_error_page(error.status, error.message)


def _unavailable(error: errors.ApiUnavailable):
    # The detail is an exception class or a status, never a URL (URLs hold share ids).
    log.warning("compute API failure (%s): %s", error.status, error)
    return html_error_page(error.status)


def _retryable(error: errors.Retryable):
    # One line, no traceback: an operating condition (``busy`` is also counted in
    # share_viewer_busy_total), not a failure.
    log.info("retry later (%s): %s", request.endpoint, error.reason or error.status)
    if request.path.endswith(".json"):
        response = jsonify(error=error.message, **error.details)
        response.status_code = error.status
        return retry.ask_later(response, error.retry_after)
    return html_error_page(error.status, error.message, reason=error.reason,
                           retry_after=error.retry_after)


def _database_error(error: DatabaseError):
    if is_missing_table(error):
        # Not a bug in a view: the store was never migrated. /readyz says so too.
        log.error("viewer store has no schema (%s): run init-db: %s", request.endpoint,
                  describe(error))
        store.rollback_conn()
        return html_error_page(503, store_missing=True)
    if not is_unavailable(error):
        return _unexpected(error)
    # The endpoint, not the path: paths carry share ids.
    log.warning("viewer store unavailable (%s %s): %s", request.method, request.endpoint,
                describe(error))
    store.rollback_conn()
    return html_error_page(503)


def _http_error(error: HTTPException):
    return html_error_page(error.code or 500)


def _unexpected(_error: Exception):
    log.exception("unhandled error")
    # Once this page is the answer, teardown sees no exception: without the rollback it
    # would commit what the failed request wrote (a sign-in consumed, nobody signed in).
    store.rollback_conn()
    return html_error_page(500)


def init_app(app: Flask) -> None:
    """Answer the API client's exceptions, HTTP errors and unexpected ones with pages."""
    app.register_error_handler(errors.LinkNotFound, _not_found)
    app.register_error_handler(errors.LinkNeedsSignIn, _sign_in)
    app.register_error_handler(errors.LinkForbidden, _forbidden)
    app.register_error_handler(errors.BadRequest, _bad_request)
    app.register_error_handler(errors.RunDataDeleted, _run_deleted)
    app.register_error_handler(errors.ApiUnavailable, _unavailable)
    app.register_error_handler(errors.Retryable, _retryable)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(DatabaseError, _database_error)
    app.register_error_handler(Exception, _unexpected)
