"""``GET /metrics``: the Prometheus text format, for the networks that may scrape it.

``FLASK_METRICS_NETWORKS`` is a comma-separated list of networks (CIDR); the default is
loopback only. Any other client gets the viewer's ordinary 404, as for a path that does
not exist. Behind a proxy, the client address is the one ``FLASK_TRUSTED_PROXY_COUNT``
unwraps, so the proxy's own address does not open the endpoint to the world.
"""

from __future__ import annotations

import ipaddress
import os

from flask import Flask, Response, abort, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

from app.platform.settings import setting

DEFAULT_NETWORKS = "127.0.0.0/8,::1/128"


def allowed_networks(setting: str | None) -> tuple:
    """Parse ``FLASK_METRICS_NETWORKS``; a malformed entry is a start-up error."""
    text = setting if setting is not None else DEFAULT_NETWORKS
    return tuple(ipaddress.ip_network(part.strip(), strict=False)
                 for part in text.split(",") if part.strip())


def _client_allowed() -> bool:
    try:
        address = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        return False
    return any(address in network for network in current_app.extensions["metrics_networks"])


def _registry():
    """Return what to serve: every worker's samples under gunicorn, else this process's."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return REGISTRY
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)
    return registry


def metrics() -> Response:
    """Answer the metrics to an allowed network, the shared 404 to anyone else."""
    if not _client_allowed():
        abort(404)
    return Response(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})


def init_app(app: Flask) -> None:
    """Serve ``/metrics`` on ``app`` to the configured networks."""
    app.extensions["metrics_networks"] = allowed_networks(setting(app, "METRICS_NETWORKS"))
    app.add_url_rule("/metrics", "metrics", metrics)
