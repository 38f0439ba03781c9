"""Time a ``diverse=10`` view against a plain sorted page over a large small-molecule pipeline.

Usage: ``python bench/bench_diverse.py [--results N] [--workdir DIR] [--rounds R]``
(default 100,000 results; ``--workdir`` keeps and reuses a seeded database). Seeding and
distinct molecules come from ``bench_explore.seed`` and ``bench_similarity.make_distinct``
(every result its own molecule, so the pool is 2,000 distinct molecules). The app runs in
this process with its embedded API; after the index is ready it measures, in one run:

- the first ``diverse=10`` page with no fingerprint cached (the pool's molecules are
  fingerprinted in the budgeted child, then clustered);
- a new ``diverse=10`` view each round (another ``mol_weight__gte``: fingerprints cached,
  the view ordered, its pool clustered) against a new plain sorted view (the same filter,
  no ``diverse``), requested in alternation: both medians and the ratio;
- the whole-set answers alone (no page rendered): the ordered rows of a new view against
  the diverse picks of the same new view, and the Butina clustering of the pool alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_explore import seed, timed
from bench_similarity import make_distinct

from app import create_app
from app.viewer.chem import butina, similarity
from app.viewer.explore import answers, chem_answers, diverse_answers
from app.viewer.explore.selections import diverse

KIND = "small_molecule_library_screen"


def whole_set(app, pipeline: str, rounds: int) -> None:
    """Time the ordered rows of a new view against its diverse picks (no page rendered)."""
    from werkzeug.datastructures import MultiDict

    from app.viewer.explore.index import indexer
    from app.viewer.explore.query import parse

    samples: dict[str, list[float]] = {"ordered rows": [], "diverse=10 picks": [],
                                       "Butina on the pool": []}
    with app.test_request_context():
        state = indexer.current(pipeline)
        for index in range(rounds):
            args = {"sort": "-mol_weight", "mol_weight__gte": str(100 + index / 10)}
            started = time.perf_counter()
            answers.ordered_rows(state, parse(MultiDict(args)))
            samples["ordered rows"].append((time.perf_counter() - started) * 1000)
            query = parse(MultiDict({**args, "diverse": "10"}))
            started = time.perf_counter()
            diverse.picks(state, query)
            samples["diverse=10 picks"].append((time.perf_counter() - started) * 1000)
        data = answers.current_frame(state)
        pool = data.molecules.codes[answers.ordered_rows(state, query)][:diverse_answers.POOL]
        bits, valid = diverse_answers.pool_bits(state, data, pool)
        for _ in range(3):
            started = time.perf_counter()
            found = butina.clusters(bits[valid])
            samples["Butina on the pool"].append((time.perf_counter() - started) * 1000)
    for name, values in samples.items():
        print(f"whole-set answer, {name}: {statistics.median(values):.1f} ms "
              f"(median of {len(values)})")
    print(f"Butina: {len(found):,} clusters of {int(valid.sum()):,} molecules")
    ratio = (statistics.median(samples["diverse=10 picks"])
             / statistics.median(samples["ordered rows"]))
    print(f"ratio diverse picks / ordered rows (whole-set answers): {ratio:.2f}x")


def main() -> None:
    """Seed (once), build the index, then print the timings and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="bench-diverse-"))
    workdir.mkdir(parents=True, exist_ok=True)
    demo = seed(workdir, options.results)
    started = time.perf_counter()
    make_distinct(workdir, demo["pipelines"][KIND])
    print(f"distinct molecules ready in {time.perf_counter() - started:.1f} s")
    app = create_app({"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
                      "ARTIFACT_DIR": str(workdir / "artifacts"), "EXPLORE_SYNC_LIMIT": 0},
                     instance_path=str(workdir / "instance"))
    client = app.test_client()
    pipeline = demo["pipelines"][KIND]
    base = f"/share/{demo['share_links']['public']['id']}/pipelines/{pipeline}"
    started = time.perf_counter()
    client.get(f"{base}?sort=-mol_weight")
    while client.get(f"{base}/explore.json").get_json()["state"] != "ready":
        time.sleep(0.2)
    print(f"index of {options.results:,} results ready in {time.perf_counter() - started:.1f} s")
    plain = f"{base}?sort=-mol_weight"
    timed(client, plain)  # warm: the page's own caches (drawings, alerts, scaffold facet)

    similarity.clear_cache()
    chem_answers.clear_caches()
    answers.clear_caches()
    cold = timed(client, f"{plain}&diverse=10")
    print(f"first diverse=10 page, no fingerprint cached: {cold:.0f} ms")

    samples: dict[str, list[float]] = {"new plain sorted view": [], "new diverse=10 view": []}
    for index in range(options.rounds):
        view = f"{plain}&mol_weight__gte={50 + index / 10}"
        samples["new plain sorted view"].append(timed(client, view))
        samples["new diverse=10 view"].append(timed(client, f"{view}&diverse=10"))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, value in medians.items():
        print(f"{name}: {value:.1f} ms (median of {options.rounds})")
    print(f"ratio diverse=10 / plain: "
          f"{medians['new diverse=10 view'] / medians['new plain sorted view']:.2f}x")
    warm = statistics.median(timed(client, f"{plain}&diverse=10") for _ in range(5))
    print(f"diverse=10 page again (cached answer): {warm:.1f} ms; plain page: "
          f"{statistics.median(timed(client, plain) for _ in range(5)):.1f} ms")

    whole_set(app, pipeline, options.rounds)


if __name__ == "__main__":
    main()
