"""Warning codes that embed a detail (``clash_res_<i>_<k>``): the index's flags, before and now.

Usage: ``python bench/bench_warning_codes.py [--results N] [--codes K] [--old-results M]
[--typical-rows R] [--frame-only | --app-only]`` (default 12,000 results carrying 4 codes
each: 48,000 distinct codes; ``--old-results`` 2,000). Measured in one run:

a) The frame's warning flags, side by side, each variant in a fresh process (its peak
   memory its own): the layout before (a boolean array per distinct code, each found by
   ``np.char.find`` over the rows' stored texts, as ``frame.build`` did) and
   ``index.warning_flags`` (a uint64 per row over the 50 listed codes and the group):
   seconds to build them, bytes of frame files (uncompressed, one .npy per array: what a
   machine maps) and of the saved .npz, the process's peak memory growth, one facet count
   and one filter. The layout before costs rows x codes, so it runs at ``--old-results``
   rows and the new one at both sizes: the ratio is read at the same size.
b) A run of a few codes (``--typical-rows``, default 1,000,000): both layouts' build, the
   facet counts of half the rows and a filter by one code (what every view pays).
c) The whole app in this process (SQLite, the embedded API, the build in its page child as
   a visitor starts it): N results carrying K codes each, the cold index build (beside
   that of the same N results without warnings), the results page (bytes, ms),
   explore.json's warning facet entries, the frame files on disk and this process's
   memory growth. It reads the app through its pages only, so ``--app-only`` runs it on
   the code before too.

The issue measured the code before at 12,000 results x 4 codes: index build 85 s, a
worker +1.8 GB, the results page 12.9 MB in 10 s, 804 MB of frame files.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

# The frame's chunk of rows (``index_queries.column_chunks``).
CHUNK = 10_000


def stored_texts(results: int, codes: int) -> list[str]:
    """Return each result's stored warning text (``;a;b;``, ``index_rows``)."""
    return [";" + ";".join(f"clash_res_{i}_{k}" for k in range(codes)) + ";"
            for i in range(results)]


def rss_mb() -> float:
    """Return this process's resident memory, MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    """Return this process's peak resident memory so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _old_flags(texts: list[str]) -> dict[str, np.ndarray]:
    """The layout before: the run's codes (the index state kept them), then one boolean
    array per code over the rows' texts as one ``str`` array."""
    column = np.array(texts, dtype=str)
    names = sorted({code for text in texts for code in text.split(";") if code})
    return {name: np.char.find(column, f";{name};") >= 0 for name in names}


def variant(kind: str, results: int, codes: int) -> dict:
    """Build one variant's flags in this (fresh) process; return its figures."""
    from app.viewer.explore.index import npz_writer, warning_flags

    texts = stored_texts(results, codes)
    gc.collect()
    before = peak_mb()
    started = time.perf_counter()
    if kind == "old":
        flags = _old_flags(texts)
        arrays = {f"c:{name}": flag for name, flag in flags.items()}
    else:
        builder = warning_flags.FlagBuilder()
        for start in range(0, results, CHUNK):
            builder.add(texts[start:start + CHUNK])
        flags = builder.finish()
        arrays = {f"w:{name}": array
                  for name, array in warning_flags.to_arrays(flags).items()}
    built = time.perf_counter() - started
    started = time.perf_counter()
    saved = npz_writer.write(arrays, level=1)
    saving = time.perf_counter() - started
    keep = np.arange(results) % 2 == 0
    started = time.perf_counter()
    if kind == "old":
        counts = {name: int(np.count_nonzero(flag & keep)) for name, flag in flags.items()}
        facet = {name: n for name, n in counts.items() if n}  # as the selection's facets
        rows = flags["clash_res_7_1"]
    else:
        listed, other = flags.counts(keep)
        facet = {**listed, "(group)": other}
        rows = flags.other_rows()
    answered = time.perf_counter() - started
    return {"build_s": built, "save_s": saving, "answer_ms": answered * 1000,
            "facet_entries": len(facet), "rows_found": int(np.count_nonzero(rows)),
            # Each array a .npy of its own in the frame files (a 128-byte header each).
            "file_bytes": sum(a.nbytes + 128 for a in arrays.values()),
            "npz_bytes": len(saved), "peak_mb": peak_mb() - before}


def run_variant(kind: str, results: int, codes: int) -> dict:
    """Run ``variant`` in a fresh interpreter; return its figures."""
    out = subprocess.run([sys.executable, __file__, "--variant", kind, "--results",
                          str(results), "--codes", str(codes)], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def frames(results: int, codes: int, old_results: int) -> None:
    """Print part a: the flags before and now, side by side at ``old_results``, and the
    new ones at ``results``."""
    old = run_variant("old", old_results, codes)
    new_same = run_variant("new", old_results, codes)
    new = run_variant("new", results, codes)
    print(f"a) the frame's warning flags, {codes} detail codes per result")
    wide = f"now at {results:,}"
    print(f"   {'':30} {'before':>14} {'now':>14} {'ratio':>9} {wide:>16}")
    rows = (("build (s)", "build_s", 2), ("save .npz (s)", "save_s", 2),
            ("facet + filter (ms)", "answer_ms", 1), ("frame file bytes", "file_bytes", 0),
            (".npz bytes", "npz_bytes", 0), ("peak memory growth (MB)", "peak_mb", 0),
            ("facet entries", "facet_entries", 0))
    for label, key, decimals in rows:
        ratio = old[key] / new_same[key] if new_same[key] else float("inf")
        print(f"   {label + ' at ' + format(old_results, ','):30} {old[key]:>14,.{decimals}f}"
              f" {new_same[key]:>14,.{decimals}f} {ratio:>8.0f}x {new[key]:>16,.{decimals}f}")


def typical(rows: int, rounds: int = 9) -> None:
    """Print part b: a run of a few codes (a third of the rows clean), the layouts side by
    side in this process: build, the facet counts of half the rows, one filter."""
    import statistics

    from app.viewer.explore.index import warning_flags

    choices = ("", ";low_iptm;", ";unpaired_cysteine;", ";low_iptm;clashes_detected;")
    rng = np.random.default_rng(1)
    texts = [choices[i] for i in rng.integers(0, len(choices), rows).tolist()]
    keep = rng.random(rows) < 0.5
    started = time.perf_counter()
    old = _old_flags(texts)
    old_build = time.perf_counter() - started
    started = time.perf_counter()
    builder = warning_flags.FlagBuilder()
    for start in range(0, rows, CHUNK):
        builder.add(texts[start:start + CHUNK])
    new = builder.finish()
    new_build = time.perf_counter() - started

    def median_ms(work) -> float:
        samples = []
        for _ in range(rounds):
            started = time.perf_counter()
            work()
            samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    old_facets = median_ms(lambda: {c: int(np.count_nonzero(f & keep)) for c, f in old.items()})
    new_facets = median_ms(lambda: new.counts(keep))
    old_filter = median_ms(lambda: keep & old["low_iptm"])
    new_filter = median_ms(lambda: keep & new.rows_with("low_iptm"))
    print(f"b) a run of {rows:,} results and {len(old)} codes: build {old_build:.2f} s before,"
          f" {new_build:.2f} s now ({old_build / new_build:.2f}x); facet counts "
          f"{old_facets:.1f} ms before, {new_facets:.1f} ms now; a filter by a code "
          f"{old_filter:.1f} ms before, {new_filter:.1f} ms now; flags "
          f"{sum(f.nbytes for f in old.values()) / 1e6:.0f} MB before, "
          f"{new.bits.nbytes / 1e6:.0f} MB now")


def app_run(results: int, codes: int) -> None:
    """Print part c: the whole app over a run of ``results`` x ``codes`` detail codes,
    its index build beside that of the same run without warnings."""
    from bench_explore import ready_after, timed

    from app import create_app
    from app.platform.db import get_engine
    from app.platform.timeutil import utcnow
    from tests.support import factories
    from tests.support.apps import make_org

    workdir = Path(tempfile.mkdtemp(prefix="bench-warning-codes-"))
    app = create_app({"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
                      "ARTIFACT_DIR": str(workdir / "artifacts"), "EXPLORE_SYNC_LIMIT": 0,
                      "EPITOPE_SCAN": False},
                     instance_path=str(workdir / "instance"))
    assert app.test_cli_runner().invoke(args=["init-db"]).exit_code == 0
    org = make_org(app)
    started = time.perf_counter()
    runs = {}
    with get_engine(app).begin() as conn:
        for name, with_codes in (("plain", False), ("codes", True)):
            runs[name], ids = factories.insert_pipeline(
                conn, org.workspace_id, "protein_design", results, seed=1,
                artifact_dir=app.config["ARTIFACT_DIR"])
            factories.set_warnings(conn, {rid: [f"clash_res_{i}_{k}" for k in range(codes)]
                                          if with_codes else [] for i, rid in enumerate(ids)})
    link = factories.make_link(app, org, pipeline_ids=list(runs.values())).id
    print(f"c) the app: twice {results:,} results, without warnings and with {codes} codes "
          f"each, seeded in {time.perf_counter() - started:.1f} s")
    client = app.test_client()

    def build(pipeline: str) -> float:
        started = utcnow()
        timed(client, f"/share/{link}/pipelines/{pipeline}?sort=-iptm")  # starts it
        return ready_after(app, pipeline, started)

    plain = build(runs["plain"])
    timed(client, f"/share/{link}/pipelines/{runs['plain']}?sort=-iptm")  # its frame files
    cache = workdir / "instance" / "frame-cache"
    plain_files = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    pipeline = runs["codes"]
    base = f"/share/{link}/pipelines/{pipeline}"
    gc.collect()
    rss_before, peak_before = rss_mb(), peak_mb()
    coded = build(pipeline)
    print(f"   cold index build: {coded:.1f} s with the codes, {plain:.1f} s without "
          f"({coded / plain:.2f}x)")
    first = timed(client, f"{base}?sort=-iptm")  # loads the frame, computes the facets
    body = client.get(f"{base}?sort=-iptm").get_data()
    warm = min(timed(client, f"{base}?sort=-iptm&page={page}") for page in (2, 3, 4))
    facets = client.get(f"{base}/explore.json").get_json()["facets"]
    on_disk = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) - plain_files
    print(f"   results page: {len(body) / 1e6:.2f} MB; first view {first / 1000:.2f} s "
          f"(the worker loads the frame), another page {warm:.0f} ms")
    group = facets["warnings"]
    grouped = (f"; the group: {group['other']:,} results, {group['grouped_codes']:,} codes"
               if "other" in group else "")  # the code before has no group
    print(f"   explore.json: {len(facets['warning']):,} warning facet entries{grouped}")
    print(f"   frame files on disk: {on_disk / 1e6:.1f} MB with the codes, "
          f"{plain_files / 1e6:.1f} MB without")
    print(f"   this process from the build on: memory +{rss_mb() - rss_before:.0f} MB "
          f"(peak +{max(peak_mb() - peak_before, 0):.0f} MB)")


def main() -> None:
    """Parse the arguments and run the parts asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=12_000)
    parser.add_argument("--codes", type=int, default=4)
    parser.add_argument("--old-results", type=int, default=2_000)
    parser.add_argument("--typical-rows", type=int, default=1_000_000)
    parser.add_argument("--frame-only", action="store_true")
    parser.add_argument("--app-only", action="store_true")
    parser.add_argument("--variant", choices=("old", "new"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.variant:
        print(json.dumps(variant(options.variant, options.results, options.codes)))
        return
    if not options.app_only:
        frames(options.results, options.codes, options.old_results)
        typical(options.typical_rows)
    if not options.frame_only:
        app_run(options.results, options.codes)


if __name__ == "__main__":
    main()
