"""The share viewer (``/share/<id>`` and below): pages for what a link exposes.

It reads only through the compute API over HTTP (``api_client``), so it works unchanged
against a remote deployment (``FLASK_COMPUTE_API_URL``) or the embedded service.
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the viewer: pages, downloads, headers, error pages, template filters."""
    # Importing downloads and exports registers their routes on the views blueprint.
    from app.viewer import downloads, error_pages, exports, formatting, security, views  # noqa: F401

    app.register_blueprint(views.bp)
    error_pages.init_app(app)
    security.init_app(app)
    formatting.init_app(app)
    _init_signin(app)


def _init_signin(app: Flask) -> None:
    """Let the sign-in package register itself when it provides ``init_app``."""
    from app.viewer import signin

    init_signin = getattr(signin, "init_app", None)
    if callable(init_signin):
        init_signin(app)
