"""The viewer's 100-row results page against its raw API call, two checkouts side by side.

Starts ``gunicorn wsgi:app`` (2 workers x 4 threads) from each checkout on its own seeded
SQLite database, then times, round after round and alternating between the checkouts, the
viewer page ``/share/<id>/pipelines/<protein_design>?limit=100`` and the API call behind it
``/compute/v1/share/<id>/pipelines/<id>/results?limit=100``. Load on the machine falls on
both alike; it prints each median and the viewer/API ratio per checkout.

Run: ``.venv/bin/python bench/bench_viewer_ab.py BEFORE_ROOT [AFTER_ROOT] [--rounds 60]``
(AFTER_ROOT defaults to this checkout; BEFORE_ROOT e.g. a ``git worktree`` of an old commit).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(root: Path, workdir: Path) -> tuple[subprocess.Popen, str, dict]:
    """Seed a database with ``root``'s own code and serve it; return (process, url, demo)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FLASK_INSTANCE_PATH": str(workdir / "instance"),
           "FLASK_SECRET_KEY": "bench", "FLASK_PUBLIC_URL": url}
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "init-db"], cwd=root, env=env, check=True, capture_output=True)
    demo = json.loads(subprocess.run([*flask, "seed-demo", "--json"], cwd=root, env=env,
                                     check=True, capture_output=True, text=True).stdout)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(root / "gunicorn.conf.py"), "--bind",
         f"127.0.0.1:{port}", "--workers", "2", "--threads", "4", "--access-logfile",
         "/dev/null", "--error-logfile", str(workdir / "gunicorn.log"), "wsgi:app"],
        cwd=root, env=env)
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url, demo
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"gunicorn of {root} did not start")


def timed(client: httpx.Client, url: str) -> float:
    """GET ``url`` (expecting 200) and return the milliseconds it took."""
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{response.status_code} from {url}")
    return elapsed


def main() -> None:
    """Serve both checkouts, alternate the two requests on each, print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
        servers = {}
        try:
            for name, root in roots.items():
                (Path(tmp) / name).mkdir()
                process, url, demo = start(root, Path(tmp) / name)
                link = demo["share_links"]["public"]["id"]
                pipeline = demo["pipelines"]["protein_design"]
                servers[name] = (process, {
                    "viewer": f"{url}/share/{link}/pipelines/{pipeline}?limit=100",
                    "api": f"{url}/compute/v1/share/{link}/pipelines/{pipeline}/results"
                           "?limit=100"})
            times = {name: {"viewer": [], "api": []} for name in servers}
            with httpx.Client(timeout=30) as client:
                for index in range(args.rounds + 5):
                    order = list(servers) if index % 2 == 0 else list(servers)[::-1]
                    for name in order:
                        for kind, url in servers[name][1].items():
                            elapsed = timed(client, url)
                            if index >= 5:  # the first rounds warm imports and templates
                                times[name][kind].append(elapsed)
        finally:
            for process, _urls in servers.values():
                process.terminate()
                process.wait(timeout=20)
    print(f"{'checkout':8} {'viewer ms':>10} {'api ms':>8} {'ratio':>6}  ({args.rounds} rounds)")
    for name, kinds in times.items():
        viewer, api = statistics.median(kinds["viewer"]), statistics.median(kinds["api"])
        print(f"{name:8} {viewer:10.2f} {api:8.2f} {viewer / api:6.2f}  {roots[name]}")


if __name__ == "__main__":
    main()
