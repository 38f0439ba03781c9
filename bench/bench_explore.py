"""Whole-set exploration on a large pipeline: index build, sorted pages, facets, exports.

Usage: ``python bench/bench_explore.py [--results N] [--workdir DIR] [--kind KIND]
[--only-build | --only-exports | --skip-exports]``
(``--kind small_molecule_library_screen`` measures the other large pipeline, whose index
build computes the chemistry of each distinct SMILES; default 100,000
results, a fresh SQLite database in a temporary folder; ``--workdir`` keeps and reuses one,
seeded once). The app runs in this process with its embedded API (the default
deployment); every figure is measured here, side by side in one run:

- cold index build of the protein_design pipeline in the background, as a visitor starts
  it (seconds until the store says the index is ready, ``ready_after``, then
  explore.json's answer; results/s; the chemistry's forkserver
  started first, as a gunicorn worker starts it), the first answer's time (the
  progress page) and the process's peak memory growth while building (``--only-build``:
  this and the API walk alone);
- a warm sorted and filtered page against the plain first page (both from the index, the
  link's access check through the API first; median of alternating requests, and their
  ratio);
- facets + histograms of explore.json, cold (answers cache emptied) and warm;
- explore.json's size and scatter points;
- memory of 4 workers holding the index (``worker_memory``: PSS, frame sharing off vs on);
- CSV, JSON and FASTA exports of every result of a sorted view (rows/s, and per CPU second
  of this process, memory growth); ``--only-exports`` builds the index cold and measures
  only these.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import worker_memory

from app import create_app
from app.platform.timeutil import utcnow
from app.viewer.explore import answers
from app.viewer.runtime import budget
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import result_index


def rss_mb() -> float:
    """Return this process's current resident memory, MB (from /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    """Return this process's peak resident memory so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def seed(workdir: Path, results: int) -> dict:
    """Seed the demo with ``results`` per large pipeline once; return its summary."""
    summary = workdir / "demo.json"
    if summary.exists():
        return json.loads(summary.read_text())
    env = {"FLASK_DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
           "FLASK_ARTIFACT_DIR": str(workdir / "artifacts"), "PATH": "/usr/bin:/bin"}
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    root = Path(__file__).resolve().parent.parent
    subprocess.run([*flask, "init-db"], env=env, cwd=root, check=True, capture_output=True)
    started = time.perf_counter()
    out = subprocess.run([*flask, "seed-demo", "--results", str(results), "--json"], env=env,
                         cwd=root, check=True, capture_output=True, text=True).stdout
    print(f"seed-demo --results {results}: {time.perf_counter() - started:.1f} s")
    summary.write_text(out)
    return json.loads(out)


def ready_after(app, pipeline_id: str, started: datetime, every: float = 0.25) -> float:
    """Return the seconds from ``started`` (``utcnow()``) to when the build made the
    pipeline's index ready, as the store recorded it (``IndexState.updated_at``, set in
    the commit that made it ready, to the millisecond).

    Neither a poll's interval nor its cost is part of the figure: the store is read every
    ``every`` seconds only to know that the build is over. (A poll of explore.json would
    add its interval, half a second on average at a visitor's ``POLL_MS``; reading the
    store every 10 ms cost the build's process 0.1-0.45 s of CPU at 30,000-100,000
    results, taken from the API the build reads.) From that commit on, any visitor's
    request sorts from the index.
    """
    engine = viewer_engine(app)
    while True:
        with engine.connect() as conn:
            state = result_index.get(conn, pipeline_id)
        if state is not None and state.ready:
            return (state.updated_at - started).total_seconds()
        time.sleep(every)


def timed(client, url: str) -> float:
    """Return the milliseconds of one GET of ``url`` (asserting a 200)."""
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, (url, response.status_code)
    return elapsed


def side_by_side(client, urls: dict[str, str], rounds: int = 15) -> dict[str, float]:
    """Return the median ms of each URL, requested in alternation (noise hits all alike)."""
    for url in urls.values():
        timed(client, url)  # warm
    samples: dict[str, list[float]] = {name: [] for name in urls}
    for _ in range(rounds):
        for name, url in urls.items():
            samples[name].append(timed(client, url))
    return {name: statistics.median(values) for name, values in samples.items()}


def export_rate(client, url: str) -> tuple[int, float, float, float]:
    """Stream an export; return (bytes, seconds, memory growth MB while streaming, CPU
    seconds of this process meanwhile: the wall time on a busy machine is inflated)."""
    gc.collect()
    before = rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    response = client.get(url, buffered=False)
    size, high = 0, before
    for chunk in response.response:
        size += len(chunk)
        high = max(high, rss_mb()) if size % 64 == 0 else high
    response.close()
    return size, time.perf_counter() - started, high - before, time.process_time() - cpu


# A small pipeline of the demo beside each large one: its index is built first (``warm``).
_SMALL = {"protein_design": "protein_redesign",
          "small_molecule_library_screen": "small_molecule_design"}


def warm(app, client, link: str, pipeline_id: str) -> None:
    """Serve a small pipeline's results page and wait until its index is ready.

    A deployed worker has served pages before the visitor who starts a large build: its
    templates are compiled and the build's code paths (page child, frame save) have run
    once, about 0.1-0.25 s that is paid once per process, not per build. Without this the
    first measured build carried it (the first of three builds in one process: 1.27 s,
    the next two 1.00 and 1.03 s at 30,000).
    """
    started = utcnow()
    client.get(f"/share/{link}/pipelines/{pipeline_id}?sort=-binding_confidence")
    ready_after(app, pipeline_id, started, every=0.05)


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--kind", default="protein_design",
                        choices=("protein_design", "small_molecule_library_screen"))
    parser.add_argument("--skip-exports", action="store_true",
                        help="leave the exports out (minutes at 1,000,000 results)")
    parser.add_argument("--only-exports", action="store_true",
                        help="build the index cold, then measure only the exports")
    parser.add_argument("--only-build", action="store_true",
                        help="measure the API walk and the cold build only, then stop")
    options = parser.parse_args()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="bench-explore-"))
    workdir.mkdir(parents=True, exist_ok=True)
    demo = seed(workdir, options.results)
    app = create_app({"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
                      "ARTIFACT_DIR": str(workdir / "artifacts"),
                      "EXPLORE_SYNC_LIMIT": 0},
                     instance_path=str(workdir / "instance"))
    client = app.test_client()
    # As a deployed worker does on start (gunicorn.conf.py, ``post_worker_init``): the
    # forkserver of the chemistry and the build's page child imports RDKit and the app
    # once, so the build below starts its child in milliseconds; then what exists is
    # frozen out of the garbage collector's walks.
    chemistry = budget.worker("drawings")
    with chemistry._lock:
        chemistry._ensure_child()
    gc.freeze()
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"][options.kind]
    base = f"/share/{link}/pipelines/{pipeline}"
    query = "sort=-binding_confidence,iptm&iptm__gte=0.5&warnings=none"
    warm(app, client, link, demo["pipelines"][_SMALL[options.kind]])

    # The floor of any build: reading every page of the API, with nothing else done.
    started, after, pages = time.perf_counter(), None, 0
    while not options.only_exports:
        suffix = f"&after_id={after}" if after else ""
        page = client.get(f"/compute/v1/share/{link}/pipelines/{pipeline}/results"
                          f"?limit=1000{suffix}").get_json()
        pages += 1
        if not page["has_more"]:
            break
        after = page["last_id"]
    walk = time.perf_counter() - started
    if not options.only_exports:
        print(f"reading the API's {pages} pages alone: {walk:.1f} s")

    with viewer_engine(app).begin() as conn:
        result_index.delete(conn, pipeline)  # a cold build, even in a reused workdir
    gc.collect()
    rss_before, peak_before = rss_mb(), peak_mb()
    started = utcnow()
    first = timed(client, f"{base}?sort=-binding_confidence")  # starts the background build
    build = ready_after(app, pipeline, started)
    said = timed(client, f"{base}/explore.json")  # a visitor's next request: ready
    assert client.get(f"{base}/explore.json").get_json()["state"] == "ready"
    print(f"first visit answered (progress page) in {first:.0f} ms; "
          f"explore.json answered ready {said:.0f} ms after")
    if not options.only_exports:
        print(f"build / API read alone: {build / walk:.2f}x")
    print(f"cold index build of {options.results:,} results: {build:.1f} s "
          f"({options.results / build:,.0f} results/s); memory +{rss_mb() - rss_before:.0f} MB"
          f" (peak {max(peak_mb() - peak_before, 0):.0f} MB above the start)")
    if options.only_build:
        return

    if not options.only_exports:
        explore(client, base, query)
        worker_memory.report(workdir, pipeline)
    exports(client, base, options)


def explore(client, base: str, query: str) -> None:
    """Print the sorted pages, explore.json and its size, measured on the built index."""
    medians = side_by_side(client, {"plain first page": base,
                                    "sorted+filtered page (index)": f"{base}?{query}",
                                    "sorted+filtered page 5": f"{base}?{query}&page=5"})
    plain = medians["plain first page"]
    for name, ms in medians.items():
        print(f"{name}: {ms:.1f} ms ({ms / plain:.2f}x the plain page)")

    def cold(what: str) -> float:
        if what == "frame":
            answers.clear_caches()  # the worker loads the index's columns again
        else:
            answers._answers.clear()  # the answers alone, the frame kept
        return timed(client, f"{base}/explore.json?{query}")

    frame_ms = statistics.median(cold("frame") for _ in range(3))
    answer_ms = statistics.median(cold("answers") for _ in range(5))
    warm = statistics.median(timed(client, f"{base}/explore.json?{query}") for _ in range(5))
    print(f"explore.json (facets + histograms + points): {answer_ms:.0f} ms computed "
          f"(worker's frame loaded), {frame_ms:.0f} ms when the worker must load the frame "
          f"first (once per index version), {warm:.0f} ms answered from the cache")

    body = client.get(f"{base}/explore.json?{query}").get_data()
    shown = json.loads(body)["points"]
    print(f"explore.json: {len(body) / 1e3:.0f} kB, scatter {len(shown['data'])} points"
          f" (truncated: {shown['truncated']})")


def exports(client, base: str, options: argparse.Namespace) -> None:
    """Print each export's rows/s (every result of a sorted view) and memory growth."""
    fasta = ("fasta",) if options.kind == "protein_design" else ()
    for fmt in () if options.skip_exports else ("csv", "json", *fasta):
        size, seconds, grown, cpu = export_rate(client, f"{base}/export.{fmt}?sort=-iptm")
        print(f"export.{fmt} of every result, sorted: {size / 1e6:.1f} MB in {seconds:.1f} s "
              f"({options.results / seconds:,.0f} rows/s; CPU {cpu:.1f} s, "
              f"{options.results / cpu:,.0f} rows per CPU second), memory +{grown:.0f} MB")


if __name__ == "__main__":
    main()
