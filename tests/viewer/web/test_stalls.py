"""Visitors who stop reading downloads hold no server: admitted like exports, dropped when
stalled, while another visitor's pages keep their times (through gunicorn)."""

from __future__ import annotations

import socket
import statistics
import time

import httpx
import pytest

from app.platform.db import get_engine
from app.viewer.web import stalls
from tests.support import factories
from tests.support.servers import start_gunicorn, stop_gunicorn

MIB = 1024 * 1024


def test_chunks_are_written_in_pieces_and_the_source_closed_when_dropped():
    closed = []

    def source():
        try:
            yield b"a" * (3 * stalls.WRITE_PIECE + 10)
            yield b"b" * 5
            yield b"c" * 5
        finally:
            closed.append(True)

    pieces = stalls._pieces(source())
    assert [len(next(pieces)) for _ in range(5)] == [stalls.WRITE_PIECE] * 3 + [10, 5]
    pieces.close()  # gunicorn closes the answer of a visitor it dropped
    assert closed == [True]
    assert b"".join(stalls._pieces(iter([b"xy" * 70_000, b"z"]))) == b"xy" * 70_000 + b"z"


def _stalled_download(port: int, path: str) -> socket.socket:
    """Ask for ``path`` with a 4 KiB receive window and read nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return sock


def _status_and_end(sock: socket.socket, seconds: float) -> tuple[int, bool]:
    """Read what the server sent within ``seconds``: (status, whether it closed). A 503
    is read to its status line only (its connection is kept alive, idle)."""
    sock.settimeout(seconds)
    received, closed, deadline = b"", False, time.monotonic() + seconds
    while time.monotonic() < deadline and not received.startswith(b"HTTP/1.1 503"):
        try:
            data = sock.recv(1 << 20)
        except TimeoutError:
            break
        except ConnectionResetError:
            closed = True
            break
        if not data:
            closed = True
            break
        received += data
    return (int(received.split(b" ", 2)[1]) if received else 0), closed


@pytest.mark.slow  # starts gunicorn
def test_sixteen_unread_downloads_leave_pages_their_times(app, org, db_url, tmp_path):
    with get_engine(app).begin() as conn:
        pipeline, (result,) = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 1, artifact_dir=app.config["ARTIFACT_DIR"])
        factories.insert_artifact(
            conn, app.config["ARTIFACT_DIR"], content=b"ATOM" * (6 * MIB // 4),
            role="structure", filename="big.cif", content_type="chemical/x-mmcif",
            result_id=result)
    link = factories.make_link(app, org, pipeline_ids=[pipeline]).id
    stall = 3
    server = start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "test-secret",
        "FLASK_ARTIFACT_DIR": app.config["ARTIFACT_DIR"],
        "FLASK_INSTANCE_PATH": app.instance_path,
        "FLASK_CLIENT_STALL_SECONDS": str(stall),
    }, tmp_path, workers=2)
    port = int(server.url.rsplit(":", 1)[1])
    download = f"/share/{link}/pipelines/{pipeline}/results/{result}/artifacts/structure"
    page_times: list[float] = []
    try:
        # Before, a page waited for as long as the downloads were held: 10 s is a failure.
        with httpx.Client(base_url=server.url, timeout=10) as http:
            http.get(f"/share/{link}")  # both workers warm before the stalls
            held = [_stalled_download(port, download) for _ in range(16)]
            started = time.monotonic()
            while time.monotonic() - started < stall + 2:
                before = time.perf_counter()
                assert http.get(f"/share/{link}").status_code == 200
                page_times.append(time.perf_counter() - before)
                time.sleep(0.1)
        answers = [_status_and_end(sock, stall + 5) for sock in held]
        for sock in held:
            sock.close()
        log = server.log_text()
    finally:
        stop_gunicorn(server)
    print(f"pages: {len(page_times)}, median {statistics.median(page_times):.3f} s, "
          f"worst {max(page_times):.3f} s; downloads: {answers}")
    # Before: every thread of both workers held by the unread downloads, pages waited
    # until the downloads were given up on.
    assert statistics.median(page_times) < 0.5 and max(page_times) < 2, page_times
    statuses = [status for status, _closed in answers]
    # Admitted: at most EXPENSIVE_WORK_PER_CLIENT (2) in each of the 2 workers; the rest
    # are told to retry.
    assert 1 <= statuses.count(200) <= 4 and statuses.count(503) == 16 - statuses.count(200)
    # The admitted ones were dropped once stalled: the server closed them.
    assert all(closed for status, closed in answers if status == 200), answers
    assert "WORKER TIMEOUT" not in log
