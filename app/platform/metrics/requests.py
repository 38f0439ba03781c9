"""Counting and timing each request by its route template.

The viewer's in-process calls to the embedded API are not counted here (they are parts of
a page, timed as API calls by the viewer's client), so one page is one request.
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request

from app.platform.metrics.registry import RATE_LIMITED, REQUEST_SECONDS, REQUESTS

# Set by the viewer's in-process API client (api_client.embedded).
_IN_PROCESS_KEY = "share_viewer.in_process"
# A path no route matched: its text is the client's, so it is never a label.
UNMATCHED = "(unmatched)"
# The methods HTTP defines. A server accepts any token as a method; any other one is
# counted as OTHER, so a client cannot add a series for every word it invents.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
                     "CONNECT"})
OTHER = "OTHER"


def method_label(method: str) -> str:
    """Return ``method`` if HTTP defines it, else ``OTHER``."""
    return method if method in METHODS else OTHER


def route_template() -> str:
    """Return the matched route's template (``/share/<link_id>``), never the path."""
    rule = request.url_rule
    return rule.rule if rule is not None else UNMATCHED


def init_app(app: Flask) -> None:
    """Count and time every request ``app`` answers."""

    @app.before_request
    def _start() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        started = g.pop("metrics_started", None)
        if started is None or request.environ.get(_IN_PROCESS_KEY):
            return response
        route = route_template()
        REQUESTS.labels(route, method_label(request.method), str(response.status_code)).inc()
        REQUEST_SECONDS.labels(route).observe(time.perf_counter() - started)
        if response.status_code == 429:
            RATE_LIMITED.labels(route).inc()
        return response
