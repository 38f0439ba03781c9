"""What every app object of Share Viewer is built from: configuration, instance folder,
logging with secrets redacted, proxy trust, ``/healthz`` and ``/readyz``.

``/healthz`` answers 200 while the process is up. ``/readyz`` answers 200 only when every
readiness check of the app passes, else 503 with ``Retry-After``: each ``Database`` an app
uses adds one (``app.platform.db``: it answers and its schema is at the code's head), and the
viewer adds one for the compute API it reads. Checks are callables that raise when their
dependency is not ready.

Request transactions are committed before the response leaves (``ShareViewerFlask``), so a
commit that fails is answered by the app's error handlers (the API's JSON envelope, the
viewer's 503 page) instead of failing after a 200 was already sent.

``create_service_app`` and ``create_viewer_app`` both start here. When ``create_app``
composes them, the two halves read one configuration object (``config=``), so a setting is
never seen by one half and not the other, and both use one instance folder (the generated
secret key and JWT key pair the viewer signs with and the service verifies with).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from flask import Config, Flask, Request, current_app
from werkzeug.exceptions import HTTPException, SecurityError
from werkzeug.middleware.proxy_fix import ProxyFix

from app.platform import instance_secrets as config_module
from app.platform import logging_setup, metrics, request_ids, settings
from app.platform.settings import setting

ROOT = Path(__file__).resolve().parents[2]
# Seconds a load balancer (or a client) should wait before asking a 503 again.
RETRY_AFTER_SECONDS = 5
_READINESS = "readiness_checks"
_BEFORE_RESPONSE = "before_response"

log = logging.getLogger(__name__)


# WSGI environ key the viewer's in-process API client sets (api_client.embedded). A client
# cannot forge it: request headers only ever reach the environ as HTTP_* keys.
IN_PROCESS_KEY = "share_viewer.in_process"


class ShareViewerRequest(Request):
    """A request whose host is checked against ``TRUSTED_HOSTS`` unless it is in-process.

    The viewer calls the embedded API with ``Host: compute.internal`` (no network, no
    outsider), which no deployment lists among its public names.
    """

    _trusted: list[str] | None = None

    @property
    def trusted_hosts(self) -> list[str] | None:
        """The names Flask checks ``Host`` against; None for in-process calls."""
        return None if self.environ.get(IN_PROCESS_KEY) else self._trusted

    @trusted_hosts.setter
    def trusted_hosts(self, value: list[str] | None) -> None:
        self._trusted = value


class ShareViewerFlask(Flask):
    """Flask, committing the request's transactions as soon as the view has returned.

    Flask's teardown runs after the response has been handed to the server: a commit
    that fails there can no longer change the answer (the client got a 200 for a write
    that was lost, or the server's bare 500). Committing here, inside the dispatch, lets
    a failure reach the app's error handlers like any other exception of the view.
    """

    request_class = ShareViewerRequest

    def create_url_adapter(self, request):
        """Flask's adapter; for an untrusted ``Host`` one that ignores it, and a 400 to raise.

        Flask leaves such a request without an adapter, so the viewer's 400 page could not
        build its relative links (``url_for``) and failed with a 500 instead.
        """
        try:
            return super().create_url_adapter(request)
        except SecurityError as untrusted:
            # Dispatch raises it (raise_routing_exception), even if matching the path fails.
            request.routing_exception = request.untrusted_host = untrusted
            try:
                return self.url_map.bind_to_environ(
                    request.environ, subdomain=self.url_map.default_subdomain or "")
            except HTTPException:  # a Host with characters no name may hold
                return None

    def raise_routing_exception(self, request):
        """Raise the untrusted-``Host`` 400 before any 404 or 405 of the path."""
        if getattr(request, "untrusted_host", None) is not None:
            raise request.untrusted_host
        super().raise_routing_exception(request)

    def dispatch_request(self):
        """Run the view, then the ``before_response`` hooks (the commits)."""
        answer = super().dispatch_request()
        for hook in self.extensions.get(_BEFORE_RESPONSE, ()):
            hook()
        return answer


def add_before_response(app: Flask, hook: Callable[[], None]) -> None:
    """Run ``hook()`` after each successful view, before its response is sent."""
    app.extensions.setdefault(_BEFORE_RESPONSE, []).append(hook)


def add_readiness_check(app: Flask, name: str, check: Callable[[], None]) -> None:
    """Make ``/readyz`` of ``app`` call ``check()``; it raises when ``name`` is not ready."""
    app.extensions.setdefault(_READINESS, {})[name] = check


def load_config(app: Flask, test_config: dict | None) -> None:
    """Fill ``app.config``: the declared defaults (``app.platform.settings``), then ``FLASK_*``
    variables, then ``test_config``."""
    app.config.from_mapping(settings.defaults())
    app.config.from_prefixed_env("FLASK")
    if test_config:
        app.config.from_mapping(test_config)
    _fill_instance_defaults(app)


def _fill_instance_defaults(app: Flask) -> None:
    """Put settings whose default lives in the instance folder in place, and read
    ``TRUSTED_HOSTS`` into the list Flask expects."""
    os.makedirs(app.instance_path, exist_ok=True)
    app.config["INSTANCE_PATH"] = app.instance_path
    if not setting(app, "SECRET_KEY"):
        app.config["SECRET_KEY"] = config_module.ensure_instance_secret(
            app.instance_path, "secret_key"
        )
    if not setting(app, "DATABASE_URL"):
        path = Path(app.instance_path) / "share-viewer.sqlite3"
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
    app.config["TRUSTED_HOSTS"] = setting(app, "TRUSTED_HOSTS")
    if setting(app, "ARTIFACT_DIR") is None:
        app.config["ARTIFACT_DIR"] = str(settings.instance_folder(app, "ARTIFACT_DIR"))


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
    app = ShareViewerFlask(
        "app",
        instance_relative_config=True,
        instance_path=os.path.abspath(
            instance_path or settings.from_environment("INSTANCE_PATH")
        ),
        template_folder=str(ROOT / "templates") if pages else None,
        static_folder=str(ROOT / "static") if pages else None,
    )
    if config is not None:
        app.config = config
    else:
        load_config(app, test_config)
    logging_setup.init_app(app)
    request_ids.init_app(app)
    metrics.init_app(app)
    proxies = setting(app, "TRUSTED_PROXY_COUNT")
    if proxies > 0:
        # Each request passes through exactly one app object's wsgi_app (the composed app
        # dispatches before either), so X-Forwarded-For is unwrapped exactly once.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    app.add_url_rule("/healthz", "healthz", healthz)
    app.add_url_rule("/readyz", "readyz", readyz)
    return app


def healthz() -> dict:
    """Answer 200 while the process is up (used by tests and load balancers)."""
    return {"status": "ok"}


def readyz():
    """Answer 200 when every readiness check passes, else 503 naming the failing ones.

    Each failure is one log line (no traceback): an unreachable database or API is an
    operating condition, not a bug. The body names checks, never URLs or errors; a check
    whose exception carries ``readiness_state`` reports that word instead of
    "unavailable", and its ``readiness_fix`` (what to run) under ``fix``.
    """
    checks, fixes = {}, {}
    for name, check in current_app.extensions.get(_READINESS, {}).items():
        try:
            check()
        except Exception as error:  # any failure of a check means "not ready"
            # A check may say more than "unavailable": a schema missing or behind
            # (app.platform.db_schema) names its database and the command that fixes it.
            checks[name] = getattr(error, "readiness_state", "unavailable")
            fix = getattr(error, "readiness_fix", None)
            if fix:
                fixes[name] = fix
            log.warning("not ready: %s: %s", name, fix or type(error).__name__)
        else:
            checks[name] = "ok"
    ready = all(state == "ok" for state in checks.values())
    body = {"status": "ok" if ready else "unavailable", "checks": checks}
    if fixes:
        body["fix"] = fixes
    headers = {"Cache-Control": "no-store"}
    if not ready:
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return body, 200 if ready else 503, headers
