"""``make run`` as a newcomer meets it (issue 19 items 12-14): the links printed for the
port actually served, with where the email link's sign-in code appears; a taken port
named before anything starts; a server that stops in under 2 s after serving a visitor.

gunicorn runs with the project's gunicorn.conf.py, its output captured as the terminal
would show it, on a demo seeded for another port (what ``instance/demo.json`` holds after
an earlier ``make run`` on the default port).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.artifact_storage import open_store
from app.demo.upkeep import seed
from app.platform.db import get_engine
from tests.support.apps import make_test_app
from tests.support.databases import migrated_database
from tests.support.demo import first_seed_copied
from tests.support.servers import free_port

# Its fixtures start gunicorn.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A demo database and its demo file, seeded for http://127.0.0.1:8000 (the test
    process's seeded demo, copied)."""
    tmp = tmp_path_factory.mktemp("make-run")
    url, drop = migrated_database(tmp)
    app = make_test_app(url, tmp)
    with first_seed_copied(app):
        demo = seed(get_engine(app), store=open_store(app.config),
                    public_url="http://127.0.0.1:8000")
    path = tmp / "demo.json"
    path.write_text(json.dumps(demo))
    get_engine(app).dispose()
    yield {"url": url, "tmp": tmp, "demo": demo, "path": path}
    drop()


def serve(seeded, tmp_path, port: int) -> tuple[subprocess.Popen, Path]:
    """Start gunicorn as make run does (without FLASK_PUBLIC_URL); wait for the banner."""
    output = tmp_path / "terminal.log"
    env = {**os.environ, "FLASK_DATABASE_URL": seeded["url"], "FLASK_SECRET_KEY": "run",
           "FLASK_ARTIFACT_DIR": str(seeded["tmp"] / "artifacts"),
           "FLASK_INSTANCE_PATH": str(seeded["tmp"] / "instance"),
           "SHARE_VIEWER_ANNOUNCE": str(seeded["path"])}
    for name in ("FLASK_PUBLIC_URL", "FLASK_MAIL_SERVER"):
        env.pop(name, None)
    with output.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--workers", "2",
             "--bind", f"127.0.0.1:{port}", "wsgi:app"],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while "Admin API key" not in output.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"gunicorn did not announce:\n{output.read_text()}")
        time.sleep(0.2)
    return process, output


def _processes() -> dict[int, tuple[int, str]]:
    """Return {pid: (parent pid, command line)} of this machine's processes."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        found[int(entry.name)] = (int(parent.split()[1]), command)
    return found


def wait_until_warm(master: int, workers: int = 2) -> None:
    """Wait until every worker's chemistry children run (``budget.warm_up``): the server a
    visitor meets after its first seconds, not one still importing RDKit on every core."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        table = _processes()
        mine = {pid for pid, (parent, _) in table.items() if parent == master}
        servers = {pid for pid, (parent, command) in table.items()
                   if parent in mine and "forkserver" in command}
        children = [pid for pid, (parent, _) in table.items() if parent in servers]
        if len(children) >= 2 * workers:
            return
        time.sleep(0.2)
    raise AssertionError("the chemistry children did not start within 90 s")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stops_in_under_two_seconds_after_serving_a_kept_alive_visitor(seeded, tmp_path, stop):
    port = free_port()
    process, output = serve(seeded, tmp_path, port)
    demo = seeded["demo"]
    share, pipeline = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    try:
        # A browser: one page on a connection it keeps open afterwards.
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
        page = client.get(f"/share/{share}/pipelines/{pipeline}")
        assert page.status_code == 200 and page.headers.get("connection") != "close"
        wait_until_warm(process.pid)
        started = time.monotonic()
        process.send_signal(stop)
        process.wait(timeout=30)
        seconds = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
        client.close()
    log = output.read_text()
    assert seconds < 2.0, f"{seconds:.2f} s to stop on {stop.name}:\n{log[-3000:]}"
    assert "SIGKILL" not in log and "Traceback" not in log, log[-3000:]


def test_the_banner_names_the_port_served_and_where_the_sign_in_code_appears(seeded,
                                                                             tmp_path):
    port = free_port()
    process, output = serve(seeded, tmp_path, port)
    process.terminate()
    process.wait(timeout=30)
    text = output.read_text()
    demo = seeded["demo"]
    assert f"http://127.0.0.1:{port}/share/{demo['share_links']['public']['id']}" in text
    assert f"http://127.0.0.1:{port}/share/{demo['share_links']['email']['id']}" in text
    assert "127.0.0.1:8000" not in text  # where the demo was seeded, not served
    assert "Sign in as alice@example.com" in text
    assert "the sign-in code appears in this terminal" in text


def test_a_taken_port_says_which_variable_to_set_before_anything_starts():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # -o: the venv is what it is (no pip install from a test).
        done = subprocess.run(["make", "-s", "-o", ".venv/.installed", "run", f"PORT={port}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert f"cannot serve on port {port}" in done.stderr
    assert "make run PORT=" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "schema is up to date" not in done.stdout  # stopped before anything ran
