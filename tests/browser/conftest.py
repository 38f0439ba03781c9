"""Shared fixtures of the browser tests."""

from __future__ import annotations

import fcntl
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from tests.support.databases import ROOT
from tests.support.demo import fingerprint
from tests.support.servers import free_port, start_gunicorn, stop_gunicorn

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


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright: one per test process.

    Each test opens its own context (``Visitor``: cookies, storage, cache of its own), so
    launching Chromium once per module bought no isolation, only start-up time.
    """
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
    """Put a demo database seeded by the real CLI in ``tmp``; return its env and the summary.

    The env (database, instance folder, artifacts, secret) is what a gunicorn server of the
    test needs to serve that data: ``start_gunicorn({**env, ...}, tmp)``. The demo is seeded
    once per test run (``flask init-db`` and ``flask seed-demo --json`` in a template
    folder, see ``_demo_template``) and each caller gets its own copy of the database, the
    instance folder and the artifact files: the same rows, ids and keys, and changes made
    to one copy (a purge, an archived link) reach no other.
    """
    template, seed = _demo_template()
    for entry in template.iterdir():
        if entry.name in _TEMPLATE_ONLY:
            continue
        if entry.is_dir():
            shutil.copytree(entry, tmp / entry.name, dirs_exist_ok=True)
        else:
            shutil.copy2(entry, tmp / entry.name)
    return _site_env(tmp), json.loads(json.dumps(seed))


def _site_env(folder: Path) -> dict:
    return {
        "FLASK_DATABASE_URL": f"sqlite:///{folder / 'demo.sqlite3'}",
        "FLASK_INSTANCE_PATH": str(folder / "instance"),
        "FLASK_ARTIFACT_DIR": str(folder / "artifacts"),
        "FLASK_SECRET_KEY": "browser-secret",
        # Off: every protein results page would start reading all 260 designs' structures
        # in the server's workers. tests/browser/test_epitope_browser.py runs its own site
        # with the scan on.
        "FLASK_EPITOPE_SCAN": "false",
    }


# Files of the template folder that are not part of a site: the seed summary, the lock.
_TEMPLATE_ONLY = {"seed.json", "seed.lock"}
# Where the template is seeded: a folder every test process of the run shares (set by the
# ``_template_root`` fixture); None outside pytest's session, then each call seeds anew.
_template_folder: Path | None = None
_template_cache: tuple[Path, dict] | None = None


def _seed_with_cli(folder: Path) -> dict:
    """Run ``flask init-db`` and ``flask seed-demo --json`` on ``folder``; return the summary."""
    run_env = {**os.environ, **_site_env(folder)}
    for command in (["init-db"], ["seed-demo", "--json"]):
        done = subprocess.run([sys.executable, "-m", "flask", "--app", "app", *command],
                              cwd=ROOT, env=run_env, capture_output=True, text=True,
                              check=True, timeout=300)
    return json.loads(done.stdout)


def _demo_template() -> tuple[Path, dict]:
    """The folder of the run's seeded demo and its summary, seeding it on the first call.

    The xdist workers of a run share the folder: the first to take its lock seeds, the
    others wait and read the summary it wrote last (so a half-seeded folder is never used).
    """
    global _template_cache
    if _template_cache is not None:
        return _template_cache
    folder = _template_folder
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="demo-template-"))
    folder.mkdir(parents=True, exist_ok=True)
    summary = folder / "seed.json"
    with open(folder / "seed.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not summary.exists():
            seed = _seed_with_cli(folder)
            partial = folder / "seed.json.part"
            partial.write_text(json.dumps(seed))
            partial.rename(summary)
    _template_cache = folder, json.loads(summary.read_text())
    return _template_cache


@pytest.fixture(scope="session", autouse=True)
def _template_root(tmp_path_factory, worker_id):
    """Point ``seeded_site_env`` at a template folder shared by the run's test processes."""
    global _template_folder, _template_cache
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is a sub-folder of the run's folder.
    shared = base.parent if worker_id != "master" else base
    _template_folder, _template_cache = shared / "demo-template", None
    yield
    _template_folder, _template_cache = None, None


class SharedSite:
    """One gunicorn server over a copy of the demo, handed to module after module.

    Most modules only read the demo, so starting a server per module bought nothing but
    time. A module that changes data (archives a link, signs in, purges) must not leak it
    into the next one: after each module the data are compared with what they were when
    the server started, and a server whose data changed is stopped; the next module gets a
    fresh copy. Tables left out of the comparison are the exploration index's (a cache
    that reading builds; it answers the same rows as the API's tables) and the visitors' sessions.
    """

    def __init__(self, tmp_path_factory) -> None:
        self.factory = tmp_path_factory
        self.current: tuple | None = None
        self.fingerprint: str | None = None

    def get(self) -> tuple:
        """The current (server, seed summary), started from a fresh copy when needed."""
        if self.current is None:
            tmp = self.factory.mktemp("shared-site")
            env, seed = seeded_site_env(tmp)
            server = start_gunicorn(env, tmp)
            self.current = server, seed
            self.fingerprint = self._fingerprint()
        return self.current

    def _fingerprint(self) -> str:
        """The shared demo's digest of the site's database (``tests.support.demo``): every
        row but the exploration caches' and the visitors' sessions."""
        path = self.current[0].env["FLASK_DATABASE_URL"].removeprefix("sqlite:///")
        engine = sa.create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
        try:
            return fingerprint(engine)
        finally:
            engine.dispose()

    def release(self) -> None:
        """After a module: stop the server if the module changed its data."""
        if self.current is not None and self._fingerprint() != self.fingerprint:
            self.close()

    def close(self) -> None:
        """Stop the server (the next ``get`` starts another)."""
        if self.current is not None:
            stop_gunicorn(self.current[0])
            self.current = None


@pytest.fixture(scope="session")
def shared_sites(tmp_path_factory):
    """The test process's ``SharedSite`` (stopped at the end of the session)."""
    sites = SharedSite(tmp_path_factory)
    yield sites
    sites.close()


@pytest.fixture(scope="module")
def site(shared_sites):
    """Gunicorn (2 workers) over a demo database seeded by the real CLI.

    Yields (server, seed summary). Modules share one server while none changes its data
    (``SharedSite``): a module that archives links or changes data may do so, and the
    next module gets a fresh copy. Modules that need more (a broken twin, a mail server)
    define their own ``site``.
    """
    yield shared_sites.get()
    shared_sites.release()


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
