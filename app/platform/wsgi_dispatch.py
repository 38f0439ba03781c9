"""Route a request to one of several WSGI apps by the start of its path.

Unlike werkzeug's ``DispatcherMiddleware``, the path is passed on untouched (no
``SCRIPT_NAME`` shift): the service app serves ``/compute/v1/...`` whether it runs alone
or mounted beside the viewer, so its URLs (presigned downloads, OpenAPI paths) are the same
either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


class PathDispatcher:
    """Send requests whose path starts with a prefix to its app, others to ``default``."""

    def __init__(self, default: Callable, mounts: dict[str, Callable]):
        self.default = default
        self.mounts = tuple(mounts.items())

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """Call the app whose prefix the request path starts with."""
        path = environ.get("PATH_INFO", "")
        for prefix, app in self.mounts:
            if path.startswith(prefix):
                return app(environ, start_response)
        return self.default(environ, start_response)
