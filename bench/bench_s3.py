"""Downloads from S3 through the viewer against directly from S3, on loopback.

moto's S3 server (``python -m moto.server``) holds the artifacts; the demo is seeded into
it (``FLASK_ARTIFACT_STORE=s3://...``) and one result's archive is given a 256 MiB file.
gunicorn serves the app with one worker (so the memory read is the streaming worker's).
Downloads alternate: the viewer's ``.../artifacts/archive`` (which asks the API for the
presigned URL and relays the bucket's answer) and the presigned URL itself, fetched
directly from moto. Printed: median throughput of each, their ratio (aim >= 0.9), and the
worker's resident memory before, at its peak during, and after the viewer downloads.

Run from the repository root: ``.venv/bin/python bench/bench_s3.py`` (``--quick``: 32 MiB,
3 rounds). Everything runs in a temporary directory; nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_viewer import MIB, Gunicorn, download, rss_bytes  # noqa: E402

from app import artifact_storage  # noqa: E402
from app.demo.seed import seed_demo  # noqa: E402
from app.platform.db import migrate  # noqa: E402
from app.store import schema  # noqa: E402
from app.viewer import store as viewer_store  # noqa: E402
from tests.support.moto_server import start_moto, stop_moto  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """Return a process's user + system CPU time, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def seed(workdir: Path, moto, size: int) -> tuple[dict, dict, str]:
    """Seed the demo into the bucket and give one archive ``size`` bytes; return the
    environment for gunicorn, the seed summary and the big archive's result id."""
    env = {**moto.env("bench"),
           "FLASK_DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
           "FLASK_INSTANCE_PATH": str(workdir / "instance"),
           "FLASK_ARTIFACT_DIR": str(workdir / "unused"),
           "FLASK_SECRET_KEY": "bench-secret"}
    os.environ.update(moto.credentials)
    store = artifact_storage.open_store({"ARTIFACT_STORE": env["FLASK_ARTIFACT_STORE"],
                                         "S3_ENDPOINT_URL": env["FLASK_S3_ENDPOINT_URL"]})
    engine = sa.create_engine(env["FLASK_DATABASE_URL"])
    migrate(engine)
    viewer_store.migrate(engine)
    summary = seed_demo(engine, store=store)
    block = hashlib.sha256(b"bench").digest() * (MIB // 32)  # 1 MiB, not all zeros
    path, stored, sha = store.save(block for _ in range(size // MIB))
    a, r = schema.artifacts, schema.results
    with engine.begin() as conn:
        row = conn.execute(
            sa.select(a.c.id, a.c.result_id).join(r, r.c.id == a.c.result_id)
            .where(r.c.pipeline_id == summary["pipelines"]["protein_design"],
                   a.c.role == "archive").order_by(a.c.result_id).limit(1)).one()
        conn.execute(a.update().where(a.c.id == row.id).values(
            storage_path=path, size=stored, sha256=sha))
    engine.dispose()
    return env, summary, row.result_id


def bench(server: Gunicorn, summary: dict, result_id: str, size: int, rounds: int) -> dict:
    """Alternate viewer and direct downloads; medians, ratio and the worker's memory."""
    link = summary["share_links"]["public"]["id"]
    pipeline = summary["pipelines"]["protein_design"]
    viewer = (f"{server.url}/share/{link}/pipelines/{pipeline}/results/{result_id}"
              "/artifacts/archive")
    api = f"{server.url}/compute/v1/share/{link}/pipelines/{pipeline}/results"
    (worker,) = server.worker_pids()
    viewer_times, direct_times = [], []
    with httpx.Client(timeout=300) as client:
        def direct_url() -> str:
            record = client.get(api, params={"ids": result_id}).json()["data"][0]
            return record["artifacts"]["archive"]["url"]

        download(client, viewer)  # warm-up: imports, pools, buffers
        download(client, direct_url())
        baseline = rss_bytes(worker)
        peak = baseline
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, rss_bytes(worker))
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        worker_cpu = 0.0
        for _ in range(rounds):
            for times, url in ((viewer_times, viewer), (direct_times, direct_url())):
                cpu_before = cpu_seconds(worker)
                total, seconds = download(client, url)
                if times is viewer_times:
                    worker_cpu += cpu_seconds(worker) - cpu_before
                if total != size:
                    raise RuntimeError(f"downloaded {total} bytes, expected {size}")
                times.append(seconds)
        stop.set()
        sampler.join()
        after = rss_bytes(worker)
    viewer_rate = size / MIB / statistics.median(viewer_times)
    direct_rate = size / MIB / statistics.median(direct_times)
    return {
        "size_mib": size // MIB, "rounds": rounds,
        "viewer_median_mib_per_s": round(viewer_rate, 1),
        "direct_s3_median_mib_per_s": round(direct_rate, 1),
        "throughput_ratio": round(viewer_rate / direct_rate, 3),
        "worker_cpu_s_per_viewer_download": round(worker_cpu / rounds, 3),
        "cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 1),
        "worker_rss_before_mib": round(baseline / MIB, 1),
        "worker_rss_peak_growth_mib": round((peak - baseline) / MIB, 2),
        "worker_rss_after_growth_mib": round((after - baseline) / MIB, 2),
    }


def main() -> None:
    """Seed, serve, measure and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="32 MiB, 3 rounds")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    size = (32 if args.quick else 256) * MIB
    rounds = args.rounds or (3 if args.quick else 5)
    moto = start_moto()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-s3-") as tmp:
            env, summary, result_id = seed(Path(tmp), moto, size)
            server = Gunicorn(env, Path(tmp), workers=1)
            try:
                report = bench(server, summary, result_id, size, rounds)
            finally:
                server.stop()
    finally:
        stop_moto(moto)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
