"""A 100-row small-molecule table with depictions against the same table without them.

Starts ``gunicorn wsgi:app`` (2 workers x 4 threads) from this checkout and from the
"before" checkout (no depictions, no computed chemistry), each on its own database seeded
by its own code (``seed-demo --results N``), and measures, alternating between the two so
that load on the machine falls on both alike (medians):

- the page alone (``/share/<id>/pipelines/<small_molecule_library_screen>?limit=100``);
- the page plus every one of its depiction images, fetched six at a time as a browser
  does, with the server's caches warm and no browser cache (the worst warm case: a
  browser keeps them ``private, max-age``, so a repeat visit asks for none);
- the same with the server's caches cold: a fresh server (both checkouts restarted each
  round), so every drawing is laid out and drawn;
- in headless Chromium (``/usr/bin/chromium``): time until the ``load`` event with every
  depiction in the viewport decoded (the rest load lazily as the visitor scrolls), with a
  fresh browser cache each round.

Run: ``.venv/bin/python bench/bench_depictions.py [BEFORE_ROOT] [--rounds 20]``
(BEFORE_ROOT defaults to ``/work/before``).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent.parent
KIND = "small_molecule_library_screen"
IMAGE = re.compile(r'<img src="(/share/[^"]+/depictions/[^"]+)"')


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """One checkout's gunicorn over its own seeded database (restartable: cold caches)."""

    def __init__(self, root: Path, workdir: Path, results: int):
        self.root, self.workdir = root, workdir
        self.env = {**os.environ, "FLASK_INSTANCE_PATH": str(workdir / "instance"),
                    "FLASK_SECRET_KEY": "bench"}
        flask = [sys.executable, "-m", "flask", "--app", "app"]
        subprocess.run([*flask, "init-db"], cwd=root, env=self.env, check=True,
                       capture_output=True)
        out = subprocess.run([*flask, "seed-demo", "--results", str(results), "--json"],
                             cwd=root, env=self.env, check=True, capture_output=True,
                             text=True).stdout
        demo = json.loads(out)
        self.path = (f"/share/{demo['share_links']['public']['id']}/pipelines/"
                     f"{demo['pipelines'][KIND]}?limit=100")
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> None:
        """Start gunicorn and wait until it answers."""
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(self.root / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4",
             "--access-logfile", "/dev/null", "--error-logfile",
             str(self.workdir / "gunicorn.log"), "wsgi:app"],
            cwd=self.root, env={**self.env, "FLASK_PUBLIC_URL": self.url})
        for _ in range(300):
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    # Both workers import and warm up: ask a few times.
                    for _ in range(4):
                        httpx.get(f"{self.url}/healthz", timeout=5)
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn of {self.root} did not start")

    def stop(self) -> None:
        """Stop gunicorn."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)


def page_and_images(client: httpx.Client, pool: ThreadPoolExecutor, server: Server,
                    with_images: bool) -> tuple[float, int]:
    """Return (ms for the page and, if asked, all its images six at a time, images)."""
    started = time.perf_counter()
    response = client.get(server.url + server.path)
    response.raise_for_status()
    images = [html.unescape(src) for src in IMAGE.findall(response.text)]
    if with_images:
        for answer in pool.map(lambda src: client.get(server.url + src), images):
            answer.raise_for_status()
    return (time.perf_counter() - started) * 1000, len(images)


def chromium_ms(browser, server: Server) -> float:
    """Return ms until load with every depiction in the viewport decoded (fresh cache)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    started = time.perf_counter()
    page.goto(server.url + server.path, wait_until="load")
    # A function, not an expression: Playwright evals an expression in the page, which
    # the page's CSP (no 'unsafe-eval') refuses.
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure.mol img')].filter(img => {"
        " const r = img.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0;"
        "}).every(img => img.complete && img.naturalWidth > 0)")
    elapsed = (time.perf_counter() - started) * 1000
    context.close()
    return elapsed


def main() -> None:
    """Seed both checkouts, run every comparison, print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?", type=Path, default=Path("/work/before"))
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--cold-rounds", type=int, default=5)
    parser.add_argument("--results", type=int, default=150)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-depictions-"))
    servers = {"before": Server(options.before.resolve(), work / "before", options.results),
               "after": Server(HERE, work / "after", options.results)}
    client = httpx.Client(timeout=60)
    pool = ThreadPoolExecutor(6)
    times: dict[str, list[float]] = {}

    def note(name: str, value: float) -> None:
        times.setdefault(name, []).append(value)

    try:
        # Cold: fresh servers each round, so the after page draws every molecule.
        for _ in range(options.cold_rounds):
            for name, server in servers.items():
                server.start()
                note(f"{name} cold: page", page_and_images(client, pool, server, False)[0])
                server.stop()
                server.start()
                elapsed, count = page_and_images(client, pool, server, name == "after")
                note(f"{name} cold: page + {count} images", elapsed)
                server.stop()
        for server in servers.values():
            server.start()
            for _ in range(3):  # warm both workers' caches
                page_and_images(client, pool, server, True)
        for _ in range(options.rounds):
            for name, server in servers.items():
                note(f"{name} warm: page", page_and_images(client, pool, server, False)[0])
                elapsed, count = page_and_images(client, pool, server, name == "after")
                note(f"{name} warm: page + {count} images", elapsed)
        try:
            from playwright.sync_api import sync_playwright
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            args=["--no-sandbox", "--headless"])
                for _ in range(options.rounds // 2):
                    for name, server in servers.items():
                        note(f"{name} Chromium: load + visible images",
                             chromium_ms(browser, server))
                browser.close()
        except ImportError:
            print("(playwright not installed: no Chromium figures)")
    finally:
        for server in servers.values():
            server.stop()
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name}: {value:.1f} ms (median of {len(times[name])})")
    print("ratios, after (with depictions) / before (without):")
    for label, after, before in (
            ("page alone, warm", "after warm: page", "before warm: page"),
            ("page alone, cold", "after cold: page", "before cold: page"),
            ("Chromium load, visible images", "after Chromium: load + visible images",
             "before Chromium: load + visible images")):
        if after in medians and before in medians:
            print(f"  {label}: {medians[after] / medians[before]:.2f}x")
    for state in ("warm", "cold"):
        after = next((k for k in medians if k.startswith(f"after {state}: page + ")), None)
        if after:
            ratio = medians[after] / medians[f"before {state}: page"]
            print(f"  page + every image, {state} server, no browser cache: {ratio:.2f}x")


if __name__ == "__main__":
    main()
