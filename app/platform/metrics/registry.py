"""Every metric Share Viewer exports, declared once per process.

Labels never hold an id, a path, an address or any value a client chose: routes are
templates (``/share/<link_id>``), methods one of HTTP's or ``OTHER`` (``requests``),
statuses the ones we answer, API calls, works and export formats names from our own code.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

# Seconds: from a cached page (a few ms) to an export of a large pipeline (minutes).
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

REQUESTS = Counter("share_viewer_http_requests_total",
                   "Requests answered, by route template, method and status.",
                   ["route", "method", "status"])
REQUEST_SECONDS = Histogram("share_viewer_http_request_duration_seconds",
                            "Time to answer a request (until the view returned), by route "
                            "template.", ["route"], buckets=_LATENCY_BUCKETS)
API_CALLS = Counter("share_viewer_api_calls_total",
                    "Calls of the viewer to the compute API, by call and outcome (ok, "
                    "error: a 5xx, a timeout or no connection).", ["call", "outcome"])
API_SECONDS = Histogram("share_viewer_api_call_duration_seconds",
                        "Time of the viewer's calls to the compute API, by call.", ["call"],
                        buckets=_LATENCY_BUCKETS)
INDEX_BUILDS = Counter("share_viewer_index_builds_total",
                       "Exploration index builds, by outcome (complete, failed).",
                       ["outcome"])
INDEX_BUILD_SECONDS = Histogram("share_viewer_index_build_duration_seconds",
                                "Time of an exploration index build.",
                                buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800))
EXPORTS = Counter("share_viewer_exports_total", "Exports started, by format.", ["format"])
RATE_LIMITED = Counter("share_viewer_rate_limited_total",
                       "Requests refused by a rate limit (429), by route template.",
                       ["route"])
BUSY = Counter("share_viewer_busy_total",
               "Requests answered 503 busy (too much expensive work at once), by work.",
               ["work"])
