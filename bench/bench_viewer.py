"""Benchmarks of the viewer served by gunicorn, on loopback, with seeded demo data.

(a) The results page (100 rows) through the viewer against the raw API call for the same
    page: median latency of each, and their ratio, in one run (aim: within 1.2x). The
    page is the plain one of a pipeline whose exploration index is current, so it is
    served from the index after one API call (the link's access check); ``--only-page``
    runs this part alone.
(b) A 256 MiB artifact downloaded through the viewer against directly from its presigned
    URL: throughput of each, their ratio (aim: >= 0.8), and the growth of the serving
    worker's resident memory while it streams (aim: < 32 MiB), read from /proc.
(c) 50 concurrent visitors for 30 s on share pages: requests per second, p50/p99 latency
    and errors (aim: zero).

Run from the repository root: ``.venv/bin/python bench/bench_viewer.py`` (``--quick`` for
a short run). Everything runs in a temporary directory; nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import artifact_storage  # noqa: E402
from app.demo.seed import seed_demo  # noqa: E402
from app.platform.db import migrate  # noqa: E402
from app.store import schema  # noqa: E402
from app.viewer import store as viewer_store  # noqa: E402

MIB = 1024 * 1024


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Gunicorn:
    """A gunicorn server running ``wsgi:app`` with the repository's gunicorn.conf.py."""

    def __init__(self, env: dict, workdir: Path, workers: int, threads: int = 4):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        log = open(workdir / f"gunicorn-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"),
             "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--threads", str(threads), "--access-logfile", "/dev/null",
             "--error-logfile", log.name, "wsgi:app"],
            cwd=ROOT, env={**os.environ, **env, "FLASK_PUBLIC_URL": self.url},
            stdout=log, stderr=log,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("gunicorn did not start")

    def worker_pids(self) -> list[int]:
        """Return the pids of the master's children (the workers), from /proc."""
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == self.process.pid:
                pids.append(int(entry.name))
        return pids

    def stop(self) -> None:
        """Stop the server."""
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def rss_bytes(pid: int) -> int:
    """Return a process's resident set size from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def seed(workdir: Path, big_size: int) -> tuple[dict, dict, str]:
    """Seed the demo database and give one result a ``big_size`` archive.

    Returns the environment for gunicorn, the seed summary, and the id of the result
    whose archive is big.
    """
    env = {
        "FLASK_DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
        "FLASK_INSTANCE_PATH": str(workdir / "instance"),
        "FLASK_ARTIFACT_DIR": str(workdir / "artifacts"),
        "FLASK_SECRET_KEY": "bench-secret",
    }
    engine = sa.create_engine(env["FLASK_DATABASE_URL"])
    migrate(engine)
    viewer_store.migrate(engine)
    summary = seed_demo(engine, artifact_dir=env["FLASK_ARTIFACT_DIR"])
    block = hashlib.sha256(b"bench").digest() * (MIB // 32)  # 1 MiB, not all zeros

    def chunks():
        for _ in range(big_size // MIB):
            yield block

    storage_path, size, sha = artifact_storage.save(env["FLASK_ARTIFACT_DIR"], chunks())
    artifacts = schema.artifacts
    with engine.begin() as conn:
        row = conn.execute(
            sa.select(artifacts.c.id, artifacts.c.result_id)
            .join(schema.results, schema.results.c.id == artifacts.c.result_id)
            .where(schema.results.c.pipeline_id == summary["pipelines"]["protein_design"],
                   artifacts.c.role == "archive")
            .order_by(artifacts.c.result_id).limit(1)
        ).one()
        conn.execute(artifacts.update().where(artifacts.c.id == row.id).values(
            storage_path=storage_path, size=size, sha256=sha))
    engine.dispose()
    return env, summary, row.result_id


def timed_get(client: httpx.Client, url: str) -> float:
    """GET ``url`` (expecting 200) and return the seconds it took."""
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"{response.status_code} from {url}")
    return elapsed


def bench_results_page(server: Gunicorn, summary: dict, rounds: int) -> dict:
    """(a) Viewer results page (100 rows) against the raw API call, interleaved.

    The plain page (no query but its size) of a pipeline whose exploration index is
    current: served from the index after one API call, the link's access check (the
    warm-up builds the index; the page is checked to be the index's: ranked rows).
    """
    link = summary["share_links"]["public"]["id"]
    pipeline = summary["pipelines"]["protein_design"]
    viewer = f"{server.url}/share/{link}/pipelines/{pipeline}?limit=100"
    api = f"{server.url}/compute/v1/share/{link}/pipelines/{pipeline}/results?limit=100"
    viewer_times, api_times = [], []
    with httpx.Client(timeout=30) as client:
        for _ in range(5):  # warm both paths (imports, template compilation, caches)
            timed_get(client, viewer)
            timed_get(client, api)
        body = client.get(viewer).text
        from_index = 'class="col-rank num"' in body and "ranking starts" not in body
        for _ in range(rounds):
            viewer_times.append(timed_get(client, viewer))
            api_times.append(timed_get(client, api))
    viewer_ms = statistics.median(viewer_times) * 1000
    api_ms = statistics.median(api_times) * 1000
    return {"viewer_median_ms": round(viewer_ms, 2), "api_median_ms": round(api_ms, 2),
            "ratio": round(viewer_ms / api_ms, 2), "served_from_index": from_index,
            "rounds": rounds}


def download(client: httpx.Client, url: str) -> tuple[int, float]:
    """Stream ``url`` to nowhere; return (bytes, seconds)."""
    started = time.perf_counter()
    total = 0
    with client.stream("GET", url) as response:
        if response.status_code != 200:
            raise RuntimeError(f"{response.status_code} from download")
        for chunk in response.iter_raw(MIB):
            total += len(chunk)
    return total, time.perf_counter() - started


def bench_download(server: Gunicorn, summary: dict, result_id: str, size: int,
                   repeats: int) -> dict:
    """(b) The big archive through the viewer and directly; RSS growth of the worker."""
    link = summary["share_links"]["public"]["id"]
    pipeline = summary["pipelines"]["protein_design"]
    viewer = f"{server.url}/share/{link}/pipelines/{pipeline}/results/{result_id}/artifacts/archive"
    api = f"{server.url}/compute/v1/share/{link}/pipelines/{pipeline}/results"
    (worker,) = server.worker_pids()
    with httpx.Client(timeout=120) as client:
        record = client.get(api, params={"ids": result_id}).json()["data"][0]
        direct_url = record["artifacts"]["archive"]["url"]
        # Warm-up: a small page and a full download, so imports and buffers exist.
        client.get(f"{server.url}/share/{link}")
        download(client, viewer)
        baseline = rss_bytes(worker)
        peak = baseline
        stop = threading.Event()

        def sample():
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, rss_bytes(worker))
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        viewer_runs = [download(client, viewer) for _ in range(repeats)]
        stop.set()
        sampler.join()
        direct_runs = [download(client, direct_url) for _ in range(repeats)]
    for total, _ in viewer_runs + direct_runs:
        if total != size:
            raise RuntimeError(f"downloaded {total} bytes, expected {size}")
    viewer_mbps = size / MIB / min(t for _, t in viewer_runs)
    direct_mbps = size / MIB / min(t for _, t in direct_runs)
    return {
        "size_mib": size // MIB,
        "viewer_mib_per_s": round(viewer_mbps, 1),
        "direct_mib_per_s": round(direct_mbps, 1),
        "throughput_ratio": round(viewer_mbps / direct_mbps, 2),
        "worker_rss_growth_mib": round((peak - baseline) / MIB, 2),
        "worker_rss_baseline_mib": round(baseline / MIB, 1),
    }


def bench_concurrency(server: Gunicorn, summary: dict, visitors: int, seconds: float) -> dict:
    """(c) ``visitors`` threads browsing share pages for ``seconds``."""
    link = summary["share_links"]["public"]["id"]
    pipelines = summary["pipelines"]
    with httpx.Client(timeout=30) as client:
        page = client.get(f"{server.url}/compute/v1/share/{link}/pipelines/"
                          f"{pipelines['small_molecule_design']}/results?limit=1").json()
    result_id = page["data"][0]["id"]
    paths = [
        f"/share/{link}",
        f"/share/{link}/pipelines/{pipelines['protein_design']}?limit=50",
        f"/share/{link}/pipelines/{pipelines['small_molecule_library_screen']}",
        f"/share/{link}/pipelines/{pipelines['small_molecule_design']}/results/{result_id}",
    ]
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def visitor(index: int) -> None:
        mine, mine_errors = [], []
        with httpx.Client(base_url=server.url, timeout=30) as client:
            n = index
            while time.monotonic() < deadline:
                path = paths[n % len(paths)]
                n += 1
                started = time.perf_counter()
                try:
                    response = client.get(path)
                    if response.status_code != 200:
                        mine_errors.append(str(response.status_code))
                except httpx.HTTPError as error:
                    mine_errors.append(type(error).__name__)
                mine.append(time.perf_counter() - started)
        with lock:
            latencies.extend(mine)
            errors.extend(mine_errors)

    threads = [threading.Thread(target=visitor, args=(i,)) for i in range(visitors)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    return {
        "visitors": visitors, "seconds": round(elapsed, 1), "requests": len(latencies),
        "errors": len(errors), "error_kinds": sorted(set(errors)),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
    }


def main() -> None:
    """Run the three benchmarks and print one JSON object (and a readable summary)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short run")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers for (a), (c)")
    parser.add_argument("--only-page", action="store_true",
                        help="part (a) alone: the plain page of a current index / its API call")
    args = parser.parse_args()
    size = (32 if args.quick else 256) * MIB
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        workdir = Path(tmp)
        env, summary, big_result = seed(workdir, size)
        report: dict = {}
        server = Gunicorn(env, workdir, workers=args.workers)
        try:
            report["results_page"] = bench_results_page(server, summary, 10 if args.quick else 40)
            page = report["results_page"]
            print(f"(a) plain 100-row page served from a current index: "
                  f"{page['viewer_median_ms']} ms against its API call "
                  f"{page['api_median_ms']} ms: {page['ratio']}x (aim <= 1.2; "
                  f"from the index: {page['served_from_index']})", flush=True)
            if args.only_page:
                print(json.dumps(report, indent=2))
                return
            report["concurrency"] = bench_concurrency(server, summary, 50,
                                                      5 if args.quick else 30)
        finally:
            server.stop()
        # One worker, so the memory sampled is the memory of the worker that streams.
        single = Gunicorn(env, workdir, workers=1)
        try:
            report["download"] = bench_download(single, summary, big_result, size,
                                                1 if args.quick else 3)
        finally:
            single.stop()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
