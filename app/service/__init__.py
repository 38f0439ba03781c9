"""The compute API (``/compute/v1``): every endpoint of the spec, on the app's database."""

from __future__ import annotations

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from app.service import errors


def init_app(app: Flask) -> None:
    """Register the service blueprint, its error envelope and proxy trust."""
    # Importing the resource modules registers their endpoints on the blueprint.
    from app.service import (  # noqa: F401
        api_keys,
        artifacts,
        openapi,
        share_links,
        share_read,
        usage,
        workspaces,
    )
    from app.service.api import bp

    errors.init_app(app)
    app.register_blueprint(bp)
    proxies = int(app.config.get("TRUSTED_PROXY_COUNT") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
