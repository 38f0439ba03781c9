"""Shared fixtures of the browser tests."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, free_port, start_gunicorn, stop_gunicorn

DOCS = ROOT / "docs"
# Debian's Chromium; Playwright cannot download its own browser on this network.
CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


class Visitor:
    """One browser context (its own cookies) and page, with JavaScript errors collected.

    Uncaught page errors always count. A console error counts unless its text contains
    one of ``allow``: Chromium logs a page that answers an error status on purpose as a
    failed load ("status of 404"). Keyword ``options`` go to ``browser.new_context``.
    """

    def __init__(self, browser, viewport: dict | None = None, allow: tuple[str, ...] = (),
                 **options):
        self.context = browser.new_context(viewport=viewport or DESKTOP, **options)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.allow = tuple(allow)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._console)

    def _console(self, message) -> None:
        if message.type == "error" and not any(a in message.text for a in self.allow):
            self.errors.append(message.text)

    def goto(self, url: str, status: int = 200):
        """Open ``url`` and check its status."""
        response = self.page.goto(url)
        assert response.status == status, (url, response.status)
        return response

    def close(self) -> None:
        """Close the context."""
        self.context.close()


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory) -> Path:
    """Where screenshots go: docs/ when UPDATE_SCREENSHOTS=1, else a temporary folder.

    A normal test run (CI included) must leave the work tree as it found it.
    """
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        return DOCS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's Chromium is missing: apt-get install -y chromium (make test does)")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu",
                  "--disable-background-networking"],
        )
        yield instance
        instance.close()


def seeded_site_env(tmp: Path) -> tuple[dict, dict]:
    """Seed a demo database in ``tmp`` with the real CLI; return its env and the summary.

    The env (database, instance folder, artifacts, secret) is what a gunicorn server of the
    test needs to serve that data: ``start_gunicorn({**env, ...}, tmp)``.
    """
    env = {
        "FLASK_DATABASE_URL": f"sqlite:///{tmp / 'demo.sqlite3'}",
        "FLASK_INSTANCE_PATH": str(tmp / "instance"),
        "FLASK_ARTIFACT_DIR": str(tmp / "artifacts"),
        "FLASK_SECRET_KEY": "browser-secret",
    }
    run_env = {**os.environ, **env}
    for command in (["init-db"], ["seed-demo", "--json"]):
        done = subprocess.run([sys.executable, "-m", "flask", "--app", "app", *command],
                              cwd=ROOT, env=run_env, capture_output=True, text=True,
                              check=True, timeout=300)
    return env, json.loads(done.stdout)


@pytest.fixture(scope="module")
def site(tmp_path_factory, request):
    """Gunicorn (2 workers) over a demo database seeded by the real CLI, one per module.

    Yields (server, seed summary). Per module, not per session: some modules archive
    links or change data. Modules that need more (a broken twin, a mail server) define
    their own ``site``.
    """
    tmp = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
    env, seed = seeded_site_env(tmp)
    server = start_gunicorn(env, tmp)
    yield server, seed
    stop_gunicorn(server)


@pytest.fixture
def visitor(browser):
    """A fresh desktop visitor; the test fails on any JavaScript or console error."""
    v = Visitor(browser)
    yield v
    v.close()
    assert v.errors == []


def serve(body: bytes):
    """Serve ``body`` at ``http://localhost:<port>/``: another origin than 127.0.0.1.

    Returns (server, url); the caller shuts the server down. A partner's page that
    frames ours, for the embedding tests.
    """

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://localhost:{server.server_address[1]}/"


def api_records(server, seed: dict, kind: str) -> list[dict]:
    """Every result of the public demo link's ``kind`` pipeline, read from the API."""
    link = seed["share_links"]["public"]["id"]
    records, after = [], None
    while True:
        params = {"limit": 1000, **({"after_id": after} if after else {})}
        page = httpx.get(f"{server.url}/compute/v1/share/{link}/pipelines/"
                         f"{seed['pipelines'][kind]}/results", params=params).json()
        records += page["data"]
        if not page["has_more"]:
            return records
        after = page["last_id"]


def download_bytes(page, link) -> bytes:
    """Click ``link`` on ``page`` and return the bytes of the download it starts."""
    with page.expect_download() as info:
        link.click()
    return Path(info.value.path()).read_bytes()
