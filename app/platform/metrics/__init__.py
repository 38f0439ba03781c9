"""Prometheus metrics: what an operator runs the service by, scraped at ``/metrics``.

``registry`` declares every metric; ``requests`` times each request of both halves (by
route template, never a path: paths hold share ids); ``endpoint`` serves the text format
to the networks ``FLASK_METRICS_NETWORKS`` lists (loopback by default) and the shared 404
to everyone else.

Under gunicorn each worker is a process of its own: ``gunicorn.conf.py`` points
``PROMETHEUS_MULTIPROC_DIR`` at a directory of this server's own before any worker imports
the app, each worker writes its samples there, and a scrape of any worker adds up all of
them (``prometheus_client.multiprocess``). Without that variable (``flask run``, tests
in-process) the process's own registry is served.
"""

from __future__ import annotations

from flask import Flask

from app.platform.metrics import endpoint, requests


def init_app(app: Flask) -> None:
    """Time ``app``'s requests and serve ``/metrics`` on it."""
    requests.init_app(app)
    endpoint.init_app(app)
