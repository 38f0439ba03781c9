"""Share Viewer: the share-link viewer and the compute API it reads, as two composed apps.

``create_app()`` builds the service app (``/compute/v1``) and the viewer app (``/share``)
once, up front, hands the viewer an in-process client of that very service object, and
dispatches ``/compute/`` to the service and everything else to the viewer. The two halves
share one configuration object and one instance folder; each has its own error handlers
and extensions. ``wsgi.py`` serves the composition or either half alone.
"""

from __future__ import annotations

from flask import Flask

from app.demo import commands as demo_commands
from app.jobs import cli
from app.platform.settings import setting
from app.platform.wsgi_dispatch import PathDispatcher
from app.service import create_service_app
from app.viewer import create_viewer_app
from app.viewer.core import api_client

__all__ = ["create_app", "create_service_app", "create_viewer_app"]

SERVICE_PREFIX = "/compute/"


def create_app(test_config: dict | None = None, *, instance_path: str | None = None) -> Flask:
    """Create the composed app: the viewer, with the service mounted under ``/compute/``.

    The viewer reads the embedded service in-process, or ``FLASK_COMPUTE_API_URL`` when set.

    The object returned is the viewer app (its test client, CLI and config are the
    composition's); ``extensions["service_app"]`` is the service half.
    """
    service = create_service_app(test_config, instance_path=instance_path)
    timeout = api_client.timeout_setting(service.config)
    remote_url = setting(service, "COMPUTE_API_URL")
    # FLASK_COMPUTE_API_URL still wins: the viewer then reads that deployment, while this
    # process serves its own API beside it as well.
    api = (api_client.remote(remote_url, timeout) if remote_url
           else api_client.embedded(service, timeout))
    viewer = create_viewer_app(api, instance_path=service.instance_path, config=service.config)
    viewer.wsgi_app = PathDispatcher(viewer.wsgi_app, {SERVICE_PREFIX: service})
    viewer.extensions["service_app"] = service
    cli.adopt_service_commands(viewer, service)
    demo_commands.init_app(viewer)  # seed-demo, refresh-demo: the composed app only
    return viewer
