"""Real HTTP: gunicorn serving an entry point of this checkout on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.databases import ROOT


def free_port() -> int:
    """Return a TCP port free on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    """A gunicorn server running the app; ``url`` is its base URL."""

    url: str
    process: subprocess.Popen
    env: dict
    log_path: Path

    def log_text(self) -> str:
        """Return what the server has written to its log so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class ServerPolicy:
    """Whether the running test may start a server process (``tests/conftest.py`` sets it).

    A test that starts gunicorn is marked ``slow``: ``make test-fast`` (``-m "not slow"``)
    must never wait for one, and an unmarked test that starts one fails at once saying so.
    """

    allowed = True
    test = ""

    @classmethod
    def check(cls) -> None:
        """Refuse a server to a test that is not marked ``slow``."""
        if not cls.allowed:
            raise RuntimeError(f"{cls.test} starts gunicorn but is not marked slow "
                               "(pytest.mark.slow): make test-fast would wait for it")


def start_gunicorn(env_overrides: dict, tmp_path: Path, workers: int = 2,
                   target: str = "wsgi:app") -> LiveServer:
    """Start gunicorn serving ``target`` on a free port and wait until it answers.

    Only a test marked ``slow`` may (``ServerPolicy``).
    """
    ServerPolicy.check()
    port = free_port()
    log_path = tmp_path / f"gunicorn-{port}.log"
    env = {**os.environ, **env_overrides}
    env.setdefault("FLASK_PUBLIC_URL", f"http://127.0.0.1:{port}")
    command = [
        sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--access-logfile", str(log_path), "--error-logfile", str(log_path),
        target,
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    # Generous: on a loaded 2-core CI machine, importing the app in each worker can take
    # many seconds, and a start-up failure here fails every end-to-end test of the module.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
            raise RuntimeError(f"gunicorn exited early:\n{log_text}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return LiveServer(url, process, env, log_path)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
    raise RuntimeError(f"gunicorn did not start within 90 s:\n{log_text}")


def raw_request(url: str, head: str, timeout: float = 10) -> int:
    """Send ``head`` (request line and headers) as is, ``Connection: close`` among them;
    return the status the server answers (0 if it answers nothing)."""
    host, port = url.rsplit("/", 1)[-1].split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


def stop_gunicorn(server: LiveServer) -> None:
    """Stop the server and wait for it."""
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
