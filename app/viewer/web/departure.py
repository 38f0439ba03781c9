"""Whether the visitor of a request has hung up, so work done for it alone can stop.

gunicorn hands the WSGI app the client's socket (``gunicorn.socket``). A visitor who
closed the tab or whose client gave up has closed the connection: peeking at the socket
without waiting then reads end-of-file (or a reset). A live connection has nothing to read
(the request was read whole) or the next pipelined request's bytes: both mean "still
there". Where there is no such socket (the test client, another server) or it cannot be
peeked at (TLS terminated in gunicorn), the visitor is taken to be there.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from flask import request


def watcher() -> Callable[[], bool]:
    """Return ``departed()`` for the current request: whether its visitor hung up.

    The function holds the socket, not the request, so any thread may call it while the
    request runs.
    """
    sock = request.environ.get("gunicorn.socket")
    if not isinstance(sock, socket.socket):
        return _never

    def departed() -> bool:
        try:
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:  # nothing to read: the connection is open
            return False
        except (ValueError, NotImplementedError):  # a TLS socket takes no flags
            return False
        except OSError:  # reset, or closed under us
            return True
    return departed


def _never() -> bool:
    return False
