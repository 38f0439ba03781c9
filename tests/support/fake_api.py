"""A real HTTP server on loopback that plays a misbehaving (or scripted) compute API.

Tests point ``COMPUTE_API_URL`` at it: the viewer then talks real HTTP, with real
timeouts, refused connections and 5xx answers, instead of a patched function.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response


@dataclass
class FakeApi:
    """A running server; ``handler(request) -> Response`` decides every answer."""

    handler: Callable[[Request], Response]
    calls: list[str] = field(default_factory=list)
    url: str = ""

    def __post_init__(self):
        def wsgi(environ, start_response):
            request = Request(environ)
            self.calls.append(request.full_path)
            return self.handler(request)(environ, start_response)

        self._server = make_server("127.0.0.1", 0, wsgi, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        # A 50 ms poll: shutdown() waits for the loop's next poll, 0.5 s by default, which
        # every test that stops a fake API paid.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving (handlers still sleeping are daemon threads and die with us)."""
        self._server.shutdown()
        self._server.server_close()


def json_response(body, status: int = 200) -> Response:
    """Return a JSON response."""
    return Response(json.dumps(body), status=status, mimetype="application/json")


def status(code: int) -> Callable[[Request], Response]:
    """A handler answering every request with ``code`` and the API's error envelope."""
    return lambda _request: json_response(
        {"statusCode": code, "error": "Error", "message": "scripted"}, code)


def sleeper(seconds: float) -> Callable[[Request], Response]:
    """A handler that sleeps past any sane timeout before answering."""

    def handler(_request: Request) -> Response:
        time.sleep(seconds)
        return json_response({})

    return handler


def dripper(seconds: float, pieces: int = 20) -> Callable[[Request], Response]:
    """A handler that answers at once but sends its body a byte at a time, slowly.

    Each piece arrives well within any read timeout; only a deadline on the whole
    exchange stops the wait.
    """

    def handler(_request: Request) -> Response:
        def body():
            for _ in range(pieces):
                yield b" "
                time.sleep(seconds / pieces)
            yield b"{}"

        return Response(body(), mimetype="application/json")

    return handler
