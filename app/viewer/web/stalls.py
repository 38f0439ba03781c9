"""A visitor who stops reading a streamed answer (a download, an export) is dropped, not
waited for.

Under gunicorn's threaded workers every answer is written by a worker thread that blocks
until the visitor's connection takes the bytes. A client that opens downloads and reads
nothing (a tiny receive window, a stalled proxy) would hold one thread per answer for as
long as it likes; a dozen such requests held every thread of a server. So a streamed
answer sets a timeout on gunicorn's socket for its request (``CLIENT_STALL_SECONDS``) and
is written in pieces of at most ``WRITE_PIECE`` bytes: a piece the visitor has not taken
within the timeout ends the answer, gunicorn closes the connection and the answer's close
callbacks run (its work-gate slot and upstream are released). With 64 KiB pieces and the
default 30 s, a visitor is dropped below about 2 KiB/s, a rate no reading client has.

Python's ``sendall`` counts its timeout over the whole call, hence the small pieces: the
relay's 1 MiB chunks would ask 35 KiB/s of a visitor. Other servers (the Flask test client,
a server that gives no socket) write as before. A buffering proxy in front (nginx's
``proxy_buffering``, the default) takes the answer at once and holds the slow reader
itself; ``docs/deploy.md`` says what that changes.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterable, Iterator

from flask import current_app, request

from app.platform.settings import setting

WRITE_PIECE = 64 * 1024


def drop_when_stalled(chunks: Iterable[bytes | str]) -> Iterator[bytes]:
    """Return ``chunks`` in pieces of at most ``WRITE_PIECE`` bytes, written to a socket
    that times out after ``CLIENT_STALL_SECONDS`` without the visitor taking a piece.

    Call it in the request (it reads the request's socket and the app's setting).
    """
    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        sock.settimeout(setting(current_app, "CLIENT_STALL_SECONDS"))
    return _pieces(chunks, sock)


def _pieces(chunks: Iterable[bytes | str], sock: socket.socket | None = None) -> Iterator[bytes]:
    finished = False
    try:
        for chunk in chunks:
            if isinstance(chunk, str):  # as werkzeug would encode it
                chunk = chunk.encode()
            if len(chunk) <= WRITE_PIECE:
                yield chunk
                continue
            view = memoryview(chunk)
            for start in range(0, len(chunk), WRITE_PIECE):
                yield bytes(view[start:start + WRITE_PIECE])  # gunicorn writes bytes only
        finished = True
    finally:
        # Closed early (the visitor was dropped or left): the source's own clean-up runs
        # now, not when the garbage collector gets to it.
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        if not finished and sock is not None:
            # Gunicorn closes a connection "gracefully" on its main thread: it waits up to
            # 2 s for the visitor to close first, a wait during which that worker accepts
            # nothing. A dropped visitor never closes; shut the connection down now so
            # that wait ends at once.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
