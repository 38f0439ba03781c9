"""The compute API (``/compute/v1``): every endpoint of the spec, on the app's database.

``create_service_app()`` builds it alone: ``gunicorn 'wsgi:service_app'`` serves only the
API, and ``create_app()`` mounts it under ``/compute/`` beside the viewer. It has no
templates, sessions, CSRF or rate limits: every caller authenticates each request with an
API key, a share-link id or a viewer-signed bearer token.
"""

from __future__ import annotations

from flask import Config, Flask

from app import artifact_storage
from app.jobs import cli
from app.platform import base_app, db
from app.service import errors, routes


def create_service_app(
    test_config: dict | None = None,
    *,
    instance_path: str | None = None,
    config: Config | None = None,
) -> Flask:
    """Create the API app: its database, JSON error envelope, blueprints and commands."""
    app = base_app.make_flask_app(test_config, instance_path=instance_path, config=config)
    # A malformed FLASK_ARTIFACT_STORE stops the server here, not at the first download.
    artifact_storage.check_config(app.config)
    db.init_app(app)
    artifact_storage.init_app(app)
    errors.init_app(app)
    for blueprint in routes.BLUEPRINTS:
        app.register_blueprint(blueprint)
    cli.init_service_commands(app)
    return app
