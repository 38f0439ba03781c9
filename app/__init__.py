"""Share Viewer: the share-link viewer and the embedded compute API, in one Flask app."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

from app import config as config_module


def create_app(test_config: dict | None = None) -> Flask:
    """Create the application: defaults, then ``FLASK_*`` variables, then ``test_config``."""
    root = Path(__file__).resolve().parent.parent
    app = Flask(
        __name__,
        instance_relative_config=True,
        # FLASK_INSTANCE_PATH moves the instance folder (secrets, SQLite file, artifacts).
        instance_path=os.environ.get("FLASK_INSTANCE_PATH") or None,
        template_folder=str(root / "templates"),
        static_folder=str(root / "static"),
    )
    app.config.from_mapping(config_module.DEFAULTS)
    app.config.from_prefixed_env("FLASK")
    if test_config:
        app.config.from_mapping(test_config)
    _fill_instance_defaults(app)

    from app import cli, db, logging_setup
    from app.service import init_app as init_service
    from app.viewer import init_app as init_viewer

    logging_setup.init_app(app)
    db.init_app(app)
    init_service(app)
    init_viewer(app)
    cli.init_app(app)

    @app.get("/healthz")
    def healthz():
        """Answer 200 when the process is up (used by tests and load balancers)."""
        return {"status": "ok"}

    return app


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
