"""The requests this process is serving now, so that background work can yield to them.

A worker's background threads (the epitope scan's fetches of structure files, through the
embedded API) share the worker's GIL with its requests, and Python has no thread
priorities: such work waits (``wait_idle``) while a request is in flight, up to a bound,
so that it still advances under constant traffic. A request counts from the moment the
WSGI server calls the app until its body is closed, so a streamed export counts while it
streams. The viewer's own calls to the embedded API (``httpx.WSGITransport``, straight to
the service app) do not pass here: background work that calls it never waits for itself.
"""

from __future__ import annotations

import threading

_idle = threading.Condition()
_count = [0]


def _started() -> None:
    with _idle:
        _count[0] += 1


def _ended() -> None:
    with _idle:
        _count[0] -= 1
        if _count[0] <= 0:
            _idle.notify_all()


def in_flight() -> int:
    """Return how many requests this process is serving now."""
    return _count[0]


def wait_idle(seconds: float) -> bool:
    """Wait until no request is in flight, at most ``seconds``; whether none is."""
    with _idle:
        return _idle.wait_for(lambda: _count[0] <= 0, seconds)


class _Body:
    """A response body that ends its request's count once: when closed (what WSGI
    servers do), or when dropped unclosed (a test client's response nobody read)."""

    def __init__(self, body):
        self._body, self._iterator, self._open = body, iter(body), True

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iterator)

    def close(self) -> None:
        """Close the app's body and end the count."""
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._end()

    def _end(self) -> None:
        if self._open:
            self._open = False
            _ended()

    def __del__(self):
        self._end()


class Counted:
    """WSGI middleware: counts each request in flight until its body is closed."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        """Serve the request, counted until the server closes its body (a file the
        server sends itself, ``wsgi.file_wrapper``, is not Python's work: not counted)."""
        _started()
        try:
            body = self.wsgi_app(environ, start_response)
        except BaseException:
            _ended()
            raise
        wrapper = environ.get("wsgi.file_wrapper")
        if isinstance(wrapper, type) and isinstance(body, wrapper):
            _ended()
            return body
        return _Body(body)
