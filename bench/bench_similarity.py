"""Time a similarity query against a plain sorted page over a large small-molecule pipeline.

Usage: ``python bench/bench_similarity.py [--results N] [--workdir DIR] [--rounds R]``
(default 20,000 results; ``seed-demo --results N`` fills the small-molecule library screen
with N results; ``--workdir`` keeps and reuses a seeded database). The app runs in this
process with its embedded API; after the index is ready it measures, in one run:

- the first similarity query (``similar_to=<SMILES>&sort=-similarity``) with no
  fingerprint cached: every distinct molecule fingerprinted in the budgeted child;
- a new similarity query each round (another result id: fingerprints cached, the
  Tanimoto column and its sort computed) against the plain sorted page
  (``sort=-mol_weight``, cached), requested in alternation: both medians and the ratio;
- the whole-set answer alone (the matching rows in order, no page rendered: a new page
  of molecules costs its drawings and alerts whatever the query), a new similarity query
  against a new filtered and sorted view, both missing every cache;
- the ``group=scaffold`` page, no scaffold cached and warm.

The demo cycles through a few dozen drugs; ``--distinct`` (default) first gives every
result of the pipeline its own molecule (a drug of the demo library with a short chain of
C, N, O, F added, each checked with RDKit), so the cold figures are per distinct molecule.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_explore import seed, timed

from app import create_app
from app.viewer.chem import scaffolds, similarity
from app.viewer.explore import answers, chem_answers

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
TAILS = ("C", "N", "O", "F", "C(=O)", "CC")


def distinct_molecules(count: int) -> list[str]:
    """Return ``count`` distinct readable SMILES: demo drugs with short added chains."""
    from rdkit import Chem
    from rdkit.rdBase import BlockLogs

    from app.synthetic.chemistry import LIBRARY

    out: dict[str, None] = {}
    for length in range(1, 6):
        for tail in itertools.product(TAILS, repeat=length):
            for _name, base in LIBRARY:
                with BlockLogs():
                    mol = Chem.MolFromSmiles(base + "".join(tail))
                if mol is not None:
                    out.setdefault(Chem.MolToSmiles(mol))
                if len(out) >= count:
                    return list(out)
    return list(out)


def make_distinct(workdir: Path, pipeline: str) -> None:
    """Give every result of ``pipeline`` its own molecule (once per workdir)."""
    import sqlalchemy as sa

    from app.store import schema

    marker = workdir / "distinct.done"
    if marker.exists():
        return
    engine = sa.create_engine(f"sqlite:///{workdir}/db.sqlite")
    with engine.begin() as conn:
        ids = [row[0] for row in conn.execute(sa.select(schema.results.c.id).where(
            schema.results.c.pipeline_id == pipeline).order_by(schema.results.c.id))]
        for result_id, smiles in zip(ids, distinct_molecules(len(ids)), strict=False):
            conn.execute(sa.update(schema.results).where(schema.results.c.id == result_id)
                         .values(smiles=smiles))
    marker.write_text("done")


def whole_set_answers(app, pipeline: str, ids: list[str], rounds: int) -> None:
    """Time the whole-set answer alone (matching rows in order, no page rendered): a new
    similarity query against a new filtered, sorted view, both missing every cache."""
    from werkzeug.datastructures import MultiDict

    from app.viewer.explore.index import indexer
    from app.viewer.explore.query import parse

    samples: dict[str, list[float]] = {"new filter + sort": [], "new similarity query": []}
    with app.test_request_context():
        state = indexer.current(pipeline)
        for index in range(rounds):
            for name, args in (
                    ("new filter + sort", {"sort": "-mol_weight",
                                           "mol_weight__gte": str(150 + index)}),
                    ("new similarity query", {"similar_to": ids[(index + 50) % len(ids)],
                                              "sort": "-similarity",
                                              "similarity__gte": "0.2"})):
                started = time.perf_counter()
                answers.ordered_rows(state, parse(MultiDict(args)))
                samples[name].append((time.perf_counter() - started) * 1000)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, value in medians.items():
        print(f"whole-set answer, {name}: {value:.1f} ms (median of {rounds})")
    print(f"ratio similarity / filter + sort (whole-set answers): "
          f"{medians['new similarity query'] / medians['new filter + sort']:.2f}x")


def main() -> None:
    """Seed (once), build the index, then print the timings and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--same-molecules", action="store_true",
                        help="keep the demo's few dozen molecules (no --distinct)")
    options = parser.parse_args()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="bench-similarity-"))
    workdir.mkdir(parents=True, exist_ok=True)
    demo = seed(workdir, options.results)
    if not options.same_molecules:
        started = time.perf_counter()
        make_distinct(workdir, demo["pipelines"]["small_molecule_library_screen"])
        print(f"distinct molecules written in {time.perf_counter() - started:.1f} s")
    app = create_app({"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
                      "ARTIFACT_DIR": str(workdir / "artifacts"), "EXPLORE_SYNC_LIMIT": 0},
                     instance_path=str(workdir / "instance"))
    client = app.test_client()
    link = demo["share_links"]["public"]["id"]
    base = f"/share/{link}/pipelines/{demo['pipelines']['small_molecule_library_screen']}"
    started = time.perf_counter()
    client.get(f"{base}?sort=-mol_weight")
    while client.get(f"{base}/explore.json").get_json()["state"] != "ready":
        time.sleep(0.2)
    print(f"index of {options.results:,} results ready in {time.perf_counter() - started:.1f} s")
    plain = f"{base}?sort=-mol_weight"
    timed(client, plain)  # warm: scaffold facet computed once here
    ids = [r["id"] for r in client.get(
        f"/compute/v1/share/{link}/pipelines/{base.rsplit('/', 1)[1]}/results?limit=200"
    ).get_json()["data"]]

    similarity.clear_cache()
    chem_answers.clear_caches()
    answers.clear_caches()
    cold = timed(client, f"{base}?similar_to={ASPIRIN}&sort=-similarity")
    print(f"first similarity query, no fingerprint cached: {cold:.0f} ms")

    samples: dict[str, list[float]] = {"plain sorted page": [], "new similarity query": []}
    for index in range(options.rounds):
        samples["plain sorted page"].append(timed(client, plain))
        samples["new similarity query"].append(timed(
            client, f"{base}?similar_to={ids[index % len(ids)]}&sort=-similarity"
                    "&similarity__gte=0.2"))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, value in medians.items():
        print(f"{name}: {value:.1f} ms (median of {options.rounds})")
    print(f"ratio similarity / plain: "
          f"{medians['new similarity query'] / medians['plain sorted page']:.2f}x")

    whole_set_answers(app, base.rsplit("/", 1)[1], ids, options.rounds)

    scaffolds.clear_cache()
    chem_answers.clear_caches()
    answers.clear_caches()
    grouped = f"{base}?group=scaffold&sort=-mol_weight"
    print(f"group=scaffold page, no scaffold cached: {timed(client, grouped):.0f} ms; "
          f"warm: {statistics.median(timed(client, grouped) for _ in range(5)):.1f} ms")


if __name__ == "__main__":
    main()
