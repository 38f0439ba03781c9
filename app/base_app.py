"""What every app object of Share Viewer is built from: configuration, instance folder,
logging with secrets redacted, proxy trust and ``/healthz``.

``create_service_app`` and ``create_viewer_app`` both start here. When ``create_app``
composes them, the two halves read one configuration object (``config=``), so a setting is
never seen by one half and not the other, and both use one instance folder (the generated
secret key and JWT key pair the viewer signs with and the service verifies with).
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Config, Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from app import config as config_module
from app import logging_setup

ROOT = Path(__file__).resolve().parent.parent


def load_config(app: Flask, test_config: dict | None) -> None:
    """Fill ``app.config``: defaults, then ``FLASK_*`` variables, then ``test_config``."""
    app.config.from_mapping(config_module.DEFAULTS)
    app.config.from_prefixed_env("FLASK")
    if test_config:
        app.config.from_mapping(test_config)
    _fill_instance_defaults(app)


def _fill_instance_defaults(app: Flask) -> None:
    """Put settings whose default lives in the instance folder in place."""
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = config_module.ensure_instance_secret(
            app.instance_path, "secret_key"
        )
    if not app.config.get("DATABASE_URL"):
        path = Path(app.instance_path) / "share-viewer.sqlite3"
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
    if not app.config.get("ARTIFACT_DIR"):
        app.config["ARTIFACT_DIR"] = str(Path(app.instance_path) / "artifacts")


def make_flask_app(
    test_config: dict | None = None,
    *,
    instance_path: str | None = None,
    config: Config | None = None,
    pages: bool = False,
) -> Flask:
    """Create a configured Flask object; ``pages`` gives it the templates and static files.

    ``instance_path`` (else ``FLASK_INSTANCE_PATH``, else ``./instance``) holds generated
    secrets, the SQLite file and artifacts. ``config``, when given, is used as it is
    (already loaded): the composed app hands its service's configuration to its viewer.
    """
    app = Flask(
        "app",
        instance_relative_config=True,
        instance_path=os.path.abspath(
            instance_path or os.environ.get("FLASK_INSTANCE_PATH") or ROOT / "instance"
        ),
        template_folder=str(ROOT / "templates") if pages else None,
        static_folder=str(ROOT / "static") if pages else None,
    )
    if config is not None:
        app.config = config
    else:
        load_config(app, test_config)
    logging_setup.init_app(app)
    proxies = int(app.config.get("TRUSTED_PROXY_COUNT") or 0)
    if proxies > 0:
        # Each request passes through exactly one app object's wsgi_app (the composed app
        # dispatches before either), so X-Forwarded-For is unwrapped exactly once.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    app.add_url_rule("/healthz", "healthz", healthz)
    return app


def healthz() -> dict:
    """Answer 200 while the process is up (used by tests and load balancers)."""
    return {"status": "ok"}
