"""Static assets of the Mol* page: bytes and time, first and repeat visit, two checkouts.

Starts ``gunicorn wsgi:app`` from each checkout (BEFORE_ROOT and this one by default) on its
own seeded SQLite database (``bench_viewer_ab.start``); this checkout first runs
``flask --app app compress-static`` (its gzip and brotli variants, as ``make run`` does).
Then, for each checkout, in Debian's headless Chromium (Playwright):

- a first visit of a protein_design result's 3D page in a new context (empty cache), and a
  repeat visit (a new tab of the same context: a link followed again, not a reload);
- per static asset, from Resource Timing: bytes on the wire (``transferSize``: body as
  sent plus headers; 0 = served from the browser cache without asking) and whether it was
  asked again (a 304 costs its headers only);
- the time until the last static asset arrived, on loopback and with the network throttled
  to 20 Mbit/s down, 40 ms round trip (a good office or home connection).

It also prints every text asset's size as identity, gzip -9 and brotli 11 with the time
each compression takes here, and what gzip of a 100-row results page (level 6, as
``app.viewer.web.compression`` does) saves against what it costs.

Run: ``.venv/bin/python bench/bench_static.py BEFORE_ROOT [AFTER_ROOT]``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import brotli
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_viewer_ab import start

HERE = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
THROTTLED = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8,
             "uploadThroughput": 5e6 / 8}
_RESOURCES = """() => performance.getEntriesByType('resource')
  .filter((e) => e.name.includes('/static/'))
  .map((e) => ({url: e.name.split('/static/')[1].split('?')[0], transfer: e.transferSize,
                body: e.encodedBodySize, decoded: e.decodedBodySize, end: e.responseEnd}))"""


def structure_url(url: str, demo: dict) -> str:
    """Return the 3D page of the first protein_design result of the demo."""
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    api = f"{url}/compute/v1/share/{link}/pipelines/{pipeline}/results?limit=1"
    result = httpx.get(api, timeout=30).json()["data"][0]["id"]
    return f"{url}/share/{link}/pipelines/{pipeline}/results/{result}/structure"


def visit(context, url: str, throttle: dict | None) -> list[dict]:
    """Open ``url`` in a new tab of ``context``; return its static assets' timings."""
    page = context.new_page()
    if throttle:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", throttle)
    page.goto(url, wait_until="load")
    entries = page.evaluate(_RESOURCES)
    page.close()
    return entries


def measure(browser, url: str, throttle: dict | None) -> dict:
    """First and repeat visit of ``url`` in one fresh context."""
    context = browser.new_context()
    first = visit(context, url, throttle)
    repeat = visit(context, url, throttle)
    context.close()
    return {"first": first, "repeat": repeat}


def summary(entries: list[dict]) -> str:
    """Bytes, requests that went out, and the time the last asset arrived."""
    sent = sum(e["transfer"] for e in entries)
    asked = sum(1 for e in entries if e["transfer"] > 0)
    end = max((e["end"] for e in entries), default=0)
    return f"{sent / 1e6:7.3f} MB on the wire, {asked}/{len(entries)} asked, last at {end:6.0f} ms"


def compression_table(static: Path) -> None:
    """Every text asset as identity, gzip -9 and brotli 11, with the compression times."""
    print("\nasset sizes (bytes) and compression time here:")
    print(f"  {'asset':44} {'identity':>10} {'gzip -9':>10} {'(s)':>6} {'brotli 11':>10} "
          f"{'(s)':>6}")
    for path in sorted(static.rglob("*")):
        if path.suffix not in (".js", ".css", ".svg", ".json") or not path.is_file():
            continue
        data = path.read_bytes()
        started = time.perf_counter()
        gz = gzip.compress(data, 9, mtime=0)
        gz_time = time.perf_counter() - started
        started = time.perf_counter()
        br = brotli.compress(data, quality=11, mode=brotli.MODE_TEXT)
        br_time = time.perf_counter() - started
        print(f"  {path.relative_to(static)!s:44} {len(data):10,} {len(gz):10,} "
              f"{gz_time:6.2f} {len(br):10,} {br_time:6.2f}")


def page_gzip(url: str, demo: dict) -> None:
    """What gzip level 6 of a 100-row results page saves and costs."""
    link = demo["share_links"]["public"]["id"]
    page = f"{url}/share/{link}/pipelines/{demo['pipelines']['protein_design']}?limit=100"
    body = httpx.get(page, timeout=60, headers={"Accept-Encoding": "identity"}).content
    rounds = 20
    started = time.perf_counter()
    for _ in range(rounds):
        packed = gzip.compress(body, 6, mtime=0)
    cost = (time.perf_counter() - started) / rounds * 1000
    saved = len(body) - len(packed)
    print(f"\nresults page (100 rows): {len(body):,} bytes, gzip 6 -> {len(packed):,} "
          f"({len(packed) / len(body):.1%}) in {cost:.1f} ms; saves {saved:,} bytes = "
          f"{saved * 8 / 20e6 * 1000:.0f} ms at 20 Mbit/s, {saved * 8 / 100e6 * 1000:.0f} ms "
          "at 100 Mbit/s")


def main() -> None:
    """Serve both checkouts and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    servers = {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name, root in roots.items():
                workdir = Path(tmp) / name
                workdir.mkdir()
                if (root / "app" / "viewer" / "precompress.py").exists():
                    env = {**os.environ, "FLASK_INSTANCE_PATH": str(workdir / "instance"),
                           "FLASK_SECRET_KEY": "bench"}
                    started = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "flask", "--app", "app",
                                    "compress-static"], cwd=root, env=env, check=True,
                                   capture_output=True)
                    print(f"{name}: compress-static took {time.perf_counter() - started:.1f} s")
                servers[name] = start(root, workdir)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox", "--headless", "--disable-gpu",
                    "--disable-background-networking"])
                for network, throttle in (("loopback", None), ("20 Mbit/s, 40 ms", THROTTLED)):
                    print(f"\nMol* page static assets, {network}:")
                    for name, (_process, url, demo) in servers.items():
                        page = structure_url(url, demo)
                        measure(browser, page, None)  # warm the server (digests, imports)
                        result = measure(browser, page, throttle)
                        for visit_name in ("first", "repeat"):
                            print(f"  {name:6} {visit_name:6} {summary(result[visit_name])}")
                        if network == "loopback":
                            for e in result["first"]:
                                print(f"      {e['url']:40} {e['transfer']:10,} bytes "
                                      f"(body {e['body']:,} of {e['decoded']:,})")
                browser.close()
            compression_table(roots["after"] / "static")
            page_gzip(*servers["after"][1:])
        finally:
            for process, _url, _demo in servers.values():
                process.terminate()
                process.wait(timeout=20)


if __name__ == "__main__":
    main()
