"""One client's expensive requests against another visitor's page times, two checkouts.

Without a cap on expensive work, 12 concurrent new ``smarts=`` queries on a
20,000-molecule pipeline made another visitor wait 26 s; 12 concurrent full CSV exports,
10 s. For each checkout
this starts ``gunicorn wsgi:app`` (2 workers x 4 threads) on its own database seeded with
``seed-demo --results N`` (the small-molecule library screen holds N molecules), builds
the screen's exploration index, then:

1. times the overview page ``ROUNDS`` times, alone (the visitor's normal time);
2. sends 12 new substructure queries at once (``explore.json?smarts=...``, each pattern
   new) and times the visitor's page meanwhile;
3. the same with 12 full CSV exports of the screen.

It prints, per checkout and case, the visitor's median and worst page time and what the
12 heavy requests got (200s, 503 busy answers, the slowest). Checkouts run one after the
other on the same machine in one run.

Run: ``.venv/bin/python bench/bench_busy.py BEFORE_ROOT [AFTER_ROOT] [--results 20000]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_viewer_ab import HERE, free_port

# Twelve substructures a chemist might try, none the same: each is a new query.
PATTERNS = ("c1ccccc1", "C(=O)O", "C(=O)N", "c1ccncc1", "[OH]", "N", "Cl", "F",
            "C=O", "c1ccc2ccccc2c1", "S", "C#N")
ROUNDS = 20


def start(root: Path, workdir: Path, results: int) -> tuple[subprocess.Popen, str, dict]:
    """Seed ``results`` molecules with ``root``'s code and serve it; return process, url, demo."""
    import os

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FLASK_INSTANCE_PATH": str(workdir / "instance"),
           "FLASK_SECRET_KEY": "bench", "FLASK_PUBLIC_URL": url}
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "init-db"], cwd=root, env=env, check=True, capture_output=True)
    demo = json.loads(subprocess.run(
        [*flask, "seed-demo", "--json", "--results", str(results)], cwd=root, env=env,
        check=True, capture_output=True, text=True).stdout)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(root / "gunicorn.conf.py"), "--bind",
         f"127.0.0.1:{port}", "--workers", "2", "--threads", "4", "--timeout", "300",
         "--access-logfile", "/dev/null", "--error-logfile", str(workdir / "gunicorn.log"),
         "wsgi:app"], cwd=root, env=env)
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url, demo
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"gunicorn of {root} did not start")


def wait_for_index(url: str, timeout: float = 600) -> None:
    """Ask the screen's explore.json until its index is ready."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = httpx.get(f"{url}/explore.json?sort=-binding_confidence", timeout=120)
        if answer.status_code == 200 and answer.json().get("state") == "ready":
            return
        time.sleep(1)
    raise RuntimeError("index not ready")


def visitor_times(page: str, rounds: int = ROUNDS) -> list[float]:
    """Time the visitor's page ``rounds`` times, one after the other (new connections)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        status = httpx.get(page, timeout=120).status_code
        times.append(time.perf_counter() - started)
        if status != 200:
            raise RuntimeError(f"visitor page answered {status}")
    return times


def under_load(heavy: list[str], page: str) -> tuple[list[float], list[tuple[int, float]]]:
    """Send ``heavy`` requests at once and time the visitor's page meanwhile."""
    outcomes: list[tuple[int, float]] = []

    def one(url: str) -> None:
        started = time.perf_counter()
        try:
            with httpx.stream("GET", url, timeout=300) as answer:
                for _chunk in answer.iter_bytes():
                    pass
                outcomes.append((answer.status_code, time.perf_counter() - started))
        except httpx.HTTPError:
            outcomes.append((0, time.perf_counter() - started))

    threads = [threading.Thread(target=one, args=(url,)) for url in heavy]
    for thread in threads:
        thread.start()
    time.sleep(0.3)  # the heavy requests are in the server first
    times = visitor_times(page, rounds=8)
    for thread in threads:
        thread.join()
    return times, outcomes


def report(name: str, case: str, times: list[float], outcomes: list[tuple[int, float]]) -> None:
    """Print one line: the visitor's median and worst time, the heavy requests' fate."""
    ok = sum(1 for status, _ in outcomes if status == 200)
    busy = sum(1 for status, _ in outcomes if status == 503)
    slowest = max((seconds for _, seconds in outcomes), default=0.0)
    print(f"{name:7} {case:12} visitor median {statistics.median(times) * 1000:8.0f} ms "
          f"worst {max(times) * 1000:8.0f} ms | heavy: {ok:2} x 200, {busy:2} x 503, "
          f"slowest {slowest:6.1f} s", flush=True)


def main() -> None:
    """Run the three cases on each checkout, one checkout after the other."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    parser.add_argument("--results", type=int, default=20000)
    args = parser.parse_args()
    checkouts = [("before", args.before.resolve()), ("after", args.after.resolve())]
    for name, root in checkouts if args.before != args.after else checkouts[:1]:
        with tempfile.TemporaryDirectory(prefix="bench-busy-") as tmp:
            process, url, demo = start(root, Path(tmp), args.results)
            try:
                link = demo["share_links"]["public"]["id"]
                screen = f"{url}/share/{link}/pipelines/" \
                         f"{demo['pipelines']['small_molecule_library_screen']}"
                page = f"{url}/share/{link}"
                wait_for_index(screen)
                visitor_times(page, rounds=3)  # warm both workers' templates
                report(name, "alone", visitor_times(page), [])
                queries = [f"{screen}/explore.json?smarts={quote(p, safe='')}"
                           for p in PATTERNS]
                report(name, "12 smarts", *under_load(queries, page))
                report(name, "12 csv", *under_load([f"{screen}/export.csv"] * 12, page))
            finally:
                process.terminate()
                process.wait(timeout=30)


if __name__ == "__main__":
    main()
