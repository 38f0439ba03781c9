"""What gunicorn announces about the connection holds, also when the body is left unread.

The app refuses a body over ``MAX_CONTENT_LENGTH`` (413), or answers 401 before reading
one, without reading it. gunicorn drains only 64 KiB of an unread body before it reuses a
connection: the answer must then say ``Connection: close`` (and the connection close), not
announce keep-alive and drop the client's next request. Raw sockets, real gunicorn.
"""

from __future__ import annotations

import json
import socket
from contextlib import suppress

import pytest

from tests.support.apps import make_org

pytestmark = pytest.mark.slow


def _read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Read one HTTP answer (status, lower-cased headers, body of Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        assert piece, f"connection closed before an answer: {data!r}"
        data += piece
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    headers = {name.lower(): value for name, value in headers.items()}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        piece = sock.recv(65536)
        assert piece, "connection closed inside the body"
        body += piece
    return int(lines[0].split()[1]), headers, body


def _post(sock: socket.socket, path: str, body: bytes, api_key: str) -> None:
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"x-api-key: {api_key}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    # The server may answer and stop reading before the whole body is sent.
    with suppress(OSError):
        sock.sendall(head + body)


def _announcement_holds(sock: socket.socket, headers: dict[str, str]) -> str:
    """Check that the connection does what the answer's ``Connection`` header said."""
    announced = headers.get("connection", "keep-alive").lower()
    if announced == "close":
        try:
            rest = sock.recv(65536)
        except ConnectionResetError:
            rest = b""
        assert rest == b"", rest[:100]
        return announced
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status, _headers, body = _read_answer(sock)
    except OSError as error:
        pytest.fail(f"announced keep-alive, then closed the connection ({error!r})")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    return announced


CASES = [  # body size, key, status, what the connection must do
    (2 * 1024 * 1024, "admin", 413, "close"),  # over MAX_CONTENT_LENGTH (1 MiB)
    (512 * 1024, "wrong", 401, "close"),        # refused before the body is read
    (2 * 1024, "wrong", 401, "keep-alive"),     # small: gunicorn drains it and goes on
]


def test_what_is_announced_about_the_connection_holds(app, live_server):
    admin_key = make_org(app).admin_key
    port = int(live_server.url.rsplit(":", 1)[1])
    for size, key, status, announced in CASES:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            _post(sock, "/compute/v1/admin/workspaces", b"x" * size,
                  admin_key if key == "admin" else "bz_live_wrong")
            got, headers, body = _read_answer(sock)
            assert got == status, body[:200]
            assert json.loads(body)["statusCode"] == status
            assert _announcement_holds(sock, headers) == announced, (size, status)
