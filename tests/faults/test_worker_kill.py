"""kill -9 of the gunicorn worker that is streaming a download: the visitor's copy stops
short, a ``Range`` request for the rest completes it (on another or a respawned worker),
and the pieces together have the stored file's sha256.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from app.platform.db import get_engine
from tests.support import factories
from tests.support.apps import make_org
from tests.support.polling import wait_until
from tests.support.processes import processes

pytestmark = pytest.mark.slow

# Larger than the loopback socket buffers, so the worker is still writing when killed.
SIZE = 48 * 1024 * 1024


def _children(parent: int) -> set[int]:
    """Return the pids of ``parent``'s live child processes (gunicorn's workers)."""
    return {pid for pid, p in processes().items() if p.parent == parent and p.state != "Z"}


def _owner_of(server_port: int, client_port: int, workers: set[int]) -> int:
    """Return the worker holding the server end of our TCP connection."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if (int(local.rsplit(":", 1)[1], 16) == server_port
                    and int(remote.rsplit(":", 1)[1], 16) == client_port):
                inodes.add(f"socket:[{fields[9]}]")
    for pid in workers:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                if os.readlink(fd) in inodes:
                    return pid
        except OSError:
            continue
    raise AssertionError("no worker holds the download's connection")


def _seed_big_archive(app, org) -> tuple[str, bytes]:
    """Give a new link's first result a SIZE-byte archive; return its download path."""
    content = os.urandom(SIZE)
    with get_engine(app).begin() as conn:
        pipeline_id, (result_id, *_rest) = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 2, seed=1)
        factories.insert_artifact(conn, app.config["ARTIFACT_DIR"], content=content,
                                  role="archive", filename="big.zip",
                                  content_type="application/zip", result_id=result_id)
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return (f"/share/{link.id}/pipelines/{pipeline_id}/results/{result_id}"
            "/artifacts/archive"), content


def test_a_download_cut_by_a_killed_worker_resumes_with_a_range(app, live_server):
    path, content = _seed_big_archive(app, make_org(app))
    port = int(live_server.url.rsplit(":", 1)[1])
    master = live_server.process.pid
    received = bytearray()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        while b"\r\n\r\n" not in received:
            received += sock.recv(65536)
        head, _sep, body = bytes(received).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        received = bytearray(body)
        while len(received) < 1024 * 1024:  # the body is flowing
            received += sock.recv(65536)
        victim = _owner_of(port, sock.getsockname()[1], _children(master))
        os.kill(victim, signal.SIGKILL)
        while True:
            try:
                piece = sock.recv(1024 * 1024)
            except (ConnectionResetError, TimeoutError):
                break
            if not piece:
                break
            received += piece
    assert 0 < len(received) < SIZE, "the download was not cut"

    # The master replaces the killed worker; the resume may go to either.
    assert wait_until(lambda: victim not in _children(master)
                      and len(_children(master)) == 2, timeout=30)
    started = time.monotonic()
    resumed = httpx.get(f"{live_server.url}{path}", timeout=30,
                        headers={"Range": f"bytes={len(received)}-"})
    assert resumed.status_code == 206
    assert resumed.headers["Content-Range"] == f"bytes {len(received)}-{SIZE - 1}/{SIZE}"
    whole = bytes(received) + resumed.content
    assert hashlib.sha256(whole).hexdigest() == hashlib.sha256(content).hexdigest()
    assert time.monotonic() - started < 30
    assert "Traceback" not in live_server.log_text()
