"""Chemistry at index time: build rate with and without it, first requests, similarity.

Usage: ``python bench/bench_chem_index.py [--results N] [--distinct D] [--workdir DIR]
[--rounds R]`` (default 100,000 results; ``--distinct 0`` skips part b). The app runs in
this process with its embedded API (``bench_explore``'s seeding, ``bench_similarity``'s
distinct molecules). In one run, for the small-molecule library screen:

a) the demo's molecules (a pool of a few hundred distinct SMILES drawn N times):
   - the index build (background, as a visitor starts it) with the alerts, scaffolds and
     fingerprints of every distinct molecule computed by the build (``chem_index``) and
     without (``MoleculeWork`` switched off: the frame the viewer saved before), results/s
     each, side by side;
   - the first alerts / scaffold / similarity requests of a fresh worker after each build
     (every cache of the process emptied first): "without" is what a visitor paid before;
   - a similarity query page (``similar_to=<result id>&sort=-similarity``) against the
     plain sorted page (``sort=-mol_weight``), cold (first request of a fresh worker) and
     warm (medians of alternating requests, new query each round), and their ratio; and
     the whole-set answer alone (``bench_similarity.whole_set_answers``: no page drawn);
b) the same build pair over D results that each have their own molecule (demo drugs with
   short added chains), to give the per-molecule cost of the chemistry.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_explore import seed, timed
from bench_similarity import ASPIRIN, make_distinct, whole_set_answers

from app import create_app
from app.viewer.chem import alerts, index_chemistry, properties, scaffolds, similarity
from app.viewer.explore import answers, chem_answers
from app.viewer.explore.index import chem_index
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import result_index

KIND = "small_molecule_library_screen"


def forget_everything() -> None:
    """Empty every cache of this process: what a freshly started worker has."""
    answers.clear_caches()
    chem_answers.clear_caches()
    alerts.clear_cache()
    scaffolds.clear_cache()
    similarity.clear_cache()
    properties._cache.clear()  # the build's per-SMILES properties too


class NoChemistry:
    """Switch the build's chemistry off (the viewer before ``chem_index``), in a with."""

    def __enter__(self):
        self.saved = (chem_index.MoleculeWork.add_page, chem_index.MoleculeWork.complete)
        chem_index.MoleculeWork.add_page = lambda self, smiles: None
        chem_index.MoleculeWork.complete = lambda self, data, previous: None
        return self

    def __exit__(self, *exc) -> None:
        chem_index.MoleculeWork.add_page, chem_index.MoleculeWork.complete = self.saved


def build(app, client, base: str, pipeline: str) -> float:
    """Delete the index, then build it as a visitor starts it; return seconds to ready."""
    with viewer_engine(app).begin() as conn:
        result_index.delete(conn, pipeline)
    forget_everything()
    started = time.perf_counter()
    client.get(f"{base}?sort=-mol_weight")
    while client.get(f"{base}/explore.json").get_json()["state"] != "ready":
        time.sleep(0.1)
    return time.perf_counter() - started


def first_requests(client, base: str, some_id: str) -> dict[str, float]:
    """Return the ms of each chemistry request as the first one of a fresh worker."""
    urls = {"alerts=any": f"{base}?alerts=any&sort=-mol_weight",
            "alert facets (explore.json)": f"{base}/explore.json",
            "group=scaffold": f"{base}?group=scaffold&sort=-mol_weight",
            "similar_to=<id>": f"{base}?similar_to={some_id}&sort=-similarity",
            "similar_to=<SMILES>": f"{base}?similar_to={ASPIRIN}&sort=-similarity",
            "plain sorted page": f"{base}?sort=-mol_weight"}
    out = {}
    for name, url in urls.items():
        forget_everything()
        out[name] = timed(client, url)
    return out


def build_pair(app, client, base: str, pipeline: str, results: int, label: str) -> None:
    """Build without and with the chemistry; print both rates and the first requests."""
    with NoChemistry():
        without = build(app, client, base, pipeline)
    ids = _ids(client, base)
    before = first_requests(client, base, ids[0])
    with_chem = build(app, client, base, pipeline)
    after = first_requests(client, base, ids[0])
    smiles = answers.current_frame(_state(app, pipeline)).molecules.smiles
    distinct = len(smiles)
    sample = smiles[:2000]
    started = time.perf_counter()
    index_chemistry.compute(sample, 600.0)
    per_molecule = (time.perf_counter() - started) * 1000 / len(sample)
    print(f"\n[{label}] {results:,} results, {distinct:,} distinct molecules")
    print(f"  index build without chemistry: {without:.1f} s ({results / without:,.0f} "
          "results/s)")
    print(f"  index build with chemistry:    {with_chem:.1f} s ({results / with_chem:,.0f} "
          f"results/s), {max(with_chem - without, 0) / distinct * 1000:.2f} ms per "
          "distinct molecule more")
    print(f"  the chemistry alone (alerts, scaffold, fingerprint in the child): "
          f"{per_molecule:.2f} ms per molecule (first {len(sample):,}), so "
          f"{per_molecule * 100_000 / 1000:.0f} s for 100,000 distinct molecules")
    print("  first request of a fresh worker after the build (ms): before -> now")
    for name in before:
        print(f"    {name:<28} {before[name]:9.0f} -> {after[name]:7.0f}")


def _state(app, pipeline: str):
    with viewer_engine(app).connect() as conn:
        return result_index.get(conn, pipeline)


def _ids(client, base: str) -> list[str]:
    link, pipeline = base.split("/")[2], base.rsplit("/", 1)[1]
    return [r["id"] for r in client.get(
        f"/compute/v1/share/{link}/pipelines/{pipeline}/results?limit=200"
    ).get_json()["data"]]


def similarity_against_plain(client, base: str, ids: list[str], rounds: int) -> None:
    """Print a similarity page against the plain sorted page: cold, then warm medians."""
    plain = f"{base}?sort=-mol_weight"
    forget_everything()
    cold_similar = timed(client, f"{base}?similar_to={ids[0]}&sort=-similarity")
    forget_everything()
    cold_plain = timed(client, plain)
    print(f"  cold (fresh worker): similarity {cold_similar:.0f} ms, plain "
          f"{cold_plain:.0f} ms, ratio {cold_similar / cold_plain:.2f}x")
    samples: dict[str, list[float]] = {"plain": [], "similarity": []}
    for index in range(rounds):
        samples["plain"].append(timed(client, plain))
        samples["similarity"].append(timed(
            client, f"{base}?similar_to={ids[(index + 1) % len(ids)]}&sort=-similarity"))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"  warm (new query each round, median of {rounds}): similarity "
          f"{medians['similarity']:.1f} ms, plain {medians['plain']:.1f} ms, ratio "
          f"{medians['similarity'] / medians['plain']:.2f}x")


def open_app(workdir: Path):
    """Return the app (embedded API, every build in the background) and a client."""
    app = create_app({"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
                      "ARTIFACT_DIR": str(workdir / "artifacts"), "EXPLORE_SYNC_LIMIT": 0},
                     instance_path=str(workdir / "instance"))
    return app, app.test_client()


def main() -> None:
    """Seed (once per workdir), then print every figure of the module doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=20_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    root = options.workdir or Path(tempfile.mkdtemp(prefix="bench-chem-index-"))
    pool_dir = root / "pool"
    pool_dir.mkdir(parents=True, exist_ok=True)
    demo = seed(pool_dir, options.results)
    pipeline = demo["pipelines"][KIND]
    base = f"/share/{demo['share_links']['public']['id']}/pipelines/{pipeline}"

    app, client = open_app(pool_dir)
    # Warm-up (not measured): the small design pipeline's index loads RDKit, starts the
    # chemistry child and the app's templates, so neither measured build pays for them.
    warm = f"/share/{demo['share_links']['public']['id']}/pipelines/" \
           f"{demo['pipelines']['small_molecule_design']}"
    build(app, client, warm, demo["pipelines"]["small_molecule_design"])
    build_pair(app, client, base, pipeline, options.results, "a: the demo's pool")
    print("  similarity query page against the plain sorted page:")
    similarity_against_plain(client, base, _ids(client, base), options.rounds)
    whole_set_answers(app, pipeline, _ids(client, base), options.rounds)

    if options.distinct:
        distinct_dir = root / f"distinct-{options.distinct}"
        distinct_dir.mkdir(exist_ok=True)
        demo_b = seed(distinct_dir, options.distinct)
        started = time.perf_counter()
        make_distinct(distinct_dir, demo_b["pipelines"][KIND])
        print(f"\n(distinct molecules written in {time.perf_counter() - started:.1f} s)")
        pipeline_b = demo_b["pipelines"][KIND]
        base_b = f"/share/{demo_b['share_links']['public']['id']}/pipelines/{pipeline_b}"
        app_b, client_b = open_app(distinct_dir)
        build_pair(app_b, client_b, base_b, pipeline_b, options.distinct,
                   "b: a molecule per result")
        print("  similarity query page against the plain sorted page:")
        similarity_against_plain(client_b, base_b, _ids(client_b, base_b), options.rounds)
        whole_set_answers(app_b, pipeline_b, _ids(client_b, base_b), options.rounds)
    if not options.workdir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
