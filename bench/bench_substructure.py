"""A new substructure query before (every SMILES parsed) and after (screen + confirm).

Usage: ``python bench/bench_substructure.py [--distinct N] [--scales K1,K2] [--workdir DIR]
[--before-large]`` (default 25,000 distinct molecules, repeated 4 and 40 times: 100,000
and 1,000,000 molecules). Everything runs in this process and its chemistry child, on
the frame's own arrays (no index build: ``bench_chem_index`` measures builds):

- N distinct molecules (demo drugs with short added chains, ``bench_similarity``'s
  recipe), each with what the index build stores for the screen (``index_chemistry.
  screen_now``: pattern fingerprint and record), made by two processes and kept in
  ``--workdir`` for the next run;
- the index-time cost this adds per molecule (``screen_now``) beside the build's whole
  chemistry (``molecule_now``), on the same 1,000 molecules, and the bytes per molecule
  (in memory, and in the frame's compressed .npz);
- at N x K for each K: the N molecules repeated K times (each repeat the same molecules,
  so the same per-molecule costs and selectivity: making a million distinct ones with
  RDKit takes over an hour on this shared machine), the query answered as before the
  screen (every SMILES confirmed in the child, a frame saved before: measured at the
  first K, scaled by rows for the next unless ``--before-large``) and after
  (``substructure_answers.matching``: the query's pattern in the child, the NumPy screen,
  the candidates confirmed from their records), for selective, middling and unselective
  queries: time, ratio, screen selectivity, matches, the screen's own ms.

Times are measured with the search's 60 s budget lifted; a line says which answers the
default budget would refuse (``substructure.TooBroad``).

Then, at each scale, the broad query and a middling one (nitro: 5 % of the molecules
are candidates) as a visitor meets them (``substructure_counting``):
how soon a request answers with the count's progress, how soon a first page of 50 rows in
a view's order is confirmed meanwhile (``substructure_first``), how long the exact answer
takes in the background child (at its lower priority), and a middling query asked
meanwhile (its time beside its own in the table: the background count does not hold it
up).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from bench_similarity import TAILS

from app.viewer.chem import index_chemistry, substructure
from app.viewer.explore import substructure_answers, substructure_counting, substructure_first
from app.viewer.explore.index import frame_chemistry, frame_screen
from app.viewer.explore.index.frame import Molecules

QUERIES = (("nitrile C#N", "C#N"), ("sulfonamide", "S(=O)(=O)N"),
           ("nitro", "[N+](=O)[O-]"), ("basic amine (recursive)",
                                        "[$([NX3;H2,H1;!$(NC=O)])]"),
           ("chlorophenyl", "c1ccc(Cl)cc1"), ("benzene", "c1ccccc1"))
LARGE_QUERIES = ("C#N", "S(=O)(=O)N", "[N+](=O)[O-]", "c1ccc(Cl)cc1", "c1ccccc1")
DEFAULT_BUDGET = substructure.TOTAL_SECONDS


def _make(candidate: str):
    """Canonical SMILES, pattern and record of a candidate (None: unreadable)."""
    from rdkit import Chem
    from rdkit.rdBase import BlockLogs

    with BlockLogs():
        mol = Chem.MolFromSmiles(candidate)
    if mol is None:
        return None
    canonical = Chem.MolToSmiles(mol)
    return (canonical, *index_chemistry.screen_now(canonical))


def _candidates():
    from app.synthetic.chemistry import LIBRARY

    for length in range(1, 7):
        for tail in itertools.product(TAILS, repeat=length):
            for _name, base in LIBRARY:
                yield base + "".join(tail)


def pool(count: int, workdir: Path) -> tuple[list[str], list[bytes], list[bytes]]:
    """Return ``count`` distinct SMILES with their patterns and records (kept in workdir)."""
    path = workdir / f"screen-pool-{count}.npz"
    if path.exists():
        with np.load(path) as saved:
            smiles = list(frame_chemistry.texts_from_arrays(saved["sblob"], saved["sends"]))
            screen = frame_screen.Screen("", saved["bits"], saved["valid"],
                                         saved["records"], saved["ends"])
        return (smiles, [b.tobytes() for b in screen.bits],
                screen.records_of(np.arange(len(smiles))))
    found: dict[str, tuple[bytes, bytes]] = {}
    started = time.perf_counter()
    with Pool(2) as workers:
        for answer in workers.imap(_make, _candidates(), chunksize=256):
            if answer is not None and answer[1]:
                found.setdefault(answer[0], answer[1:])
            if len(found) >= count:
                workers.terminate()
                break
    print(f"(made {len(found):,} molecules in {time.perf_counter() - started:.0f} s)",
          flush=True)
    smiles = list(found)
    screen = frame_screen.stack([found[s][0] for s in smiles], [found[s][1] for s in smiles])
    blob, ends = frame_chemistry.texts_to_arrays(smiles)
    np.savez(path, sblob=blob, sends=ends, bits=screen.bits, valid=screen.valid,
             records=screen.records, ends=screen.ends)
    return smiles, [found[s][0] for s in smiles], [found[s][1] for s in smiles]


def molecules_of(smiles: list[str], patterns: list[bytes], records: list[bytes],
                 repeat: int = 1, screened: bool = True) -> Molecules:
    """Return frame molecules over ``smiles`` (``repeat`` times) with or without the screen."""
    size = len(smiles) * repeat
    screen = None
    if screened:
        one = frame_screen.stack(patterns, records)
        shift = np.repeat(np.arange(repeat, dtype=np.int64) * len(one.records), len(smiles))
        screen = frame_screen.Screen(one.scheme, np.tile(one.bits, (repeat, 1)),
                                     np.tile(one.valid, repeat), np.tile(one.records, repeat),
                                     np.tile(one.ends, repeat) + shift)
    empty = np.zeros(size, dtype=bool)
    chemistry = frame_chemistry.Chemistry(
        [], [], np.zeros(size + 1, dtype=np.int64), np.zeros(0, dtype=np.int32), empty,
        np.full(size, -1, dtype=np.int32), [], np.zeros((size, 256), dtype=np.uint8),
        empty, screen)
    return Molecules(np.arange(size, dtype=np.int32), smiles * repeat, chemistry)


def timed_answer(molecules: Molecules, query: str) -> tuple[float, int, int]:
    """Return (seconds, candidates confirmed, matches) of a new query."""
    counted: list[int] = []
    confirm = substructure.confirm_within_budget

    def counting(candidates, chunks, text):
        counted.append(candidates)
        return confirm(candidates, chunks, text)

    substructure.confirm_within_budget = counting
    try:
        started = time.perf_counter()
        found = substructure_answers.matching(molecules, query)
        return time.perf_counter() - started, counted[0], int(found.sum())
    finally:
        substructure.confirm_within_budget = confirm


def through_count(molecules: Molecules, broad: str, meanwhile: str
                  ) -> tuple[float | None, float | None, float, float]:
    """Return (s to the first answer, None: exact at once; s to a first page of 50 rows
    in a view's order, ``substructure_first``, while it counts; s of ``meanwhile`` asked
    during the count; s to the exact answer) of ``broad`` through ``substructure_counting``."""
    substructure_counting.clear()
    started = time.perf_counter()
    first = page = None
    try:
        substructure_counting.answer(("bench", broad), molecules, broad)
    except substructure_counting.Counting:
        first = time.perf_counter() - started
        asked = time.perf_counter()
        candidates = substructure_counting.candidates_of(("bench", broad))
        # A view's order of the candidate rows (a random one: no metric here; ordering
        # a million rows by a metric is the frame's own ~0.1 s).
        order = candidates[np.random.default_rng(0).permutation(len(candidates))]
        substructure_first.first_rows(molecules, broad, order, 51)
        page = time.perf_counter() - asked
    asked = time.perf_counter()
    substructure_counting.answer(("bench", meanwhile), molecules, meanwhile)
    during = time.perf_counter() - asked
    substructure_counting._counts[("bench", broad)].done.wait()  # a look never waits
    whole = time.perf_counter() - started
    substructure_counting.answer(("bench", broad), molecules, broad)  # now exact, kept
    return first, page, during, whole


def screen_ms(molecules: Molecules, query: str) -> float:
    """Return the NumPy screen's own time (ms, best of 3) for ``query``."""
    from app.viewer.chem import pattern_screen

    bits = np.frombuffer(substructure.query_pattern(query), dtype=np.uint8)
    screen = molecules.chemistry.screen
    best = 1e9
    for _round in range(3):
        started = time.perf_counter()
        pattern_screen.screen(screen.bits, screen.valid, bits)
        best = min(best, (time.perf_counter() - started) * 1e3)
    return best


def index_cost(smiles: list[str]) -> None:
    """Print the index-time cost of the screen per molecule beside the whole chemistry."""
    sample = smiles[:1000]
    times = {"screen (pattern + record)": [], "whole chemistry (molecule_now)": []}
    for _round in range(2):  # alternated, so both see the same load
        for name, task in (("screen (pattern + record)", index_chemistry.screen_now),
                           ("whole chemistry (molecule_now)", index_chemistry.molecule_now)):
            started = time.perf_counter()
            for text in sample:
                task(text)
            times[name].append((time.perf_counter() - started) * 1e3 / len(sample))
    screen_ms = min(times["screen (pattern + record)"])
    whole_ms = min(times["whole chemistry (molecule_now)"])
    print(f"  index time per molecule: screen {screen_ms:.2f} ms of the build's "
          f"{whole_ms:.2f} ms chemistry ({screen_ms / whole_ms:.0%}; in-process, "
          f"{len(sample):,} molecules, best of 2)")


def sizes(smiles: list[str], patterns: list[bytes], records: list[bytes]) -> None:
    """Print the bytes per molecule of the screen, raw and in the frame's .npz."""
    import io

    screen = frame_screen.stack(patterns, records)
    out = io.BytesIO()
    np.savez_compressed(out, **frame_screen.to_arrays(screen))
    n = len(smiles)
    print(f"  bytes per molecule: pattern 256 + record {len(screen.records) / n:.0f} "
          f"(+8 its end) = {(screen.bits.nbytes + screen.records.nbytes) / n + 8:.0f} in "
          f"memory, {len(out.getvalue()) / n:.0f} compressed in the .npz; its SMILES "
          f"{statistics.mean(len(s) for s in smiles):.0f}")


def per_candidate(smiles: list[str], records: list[bytes]) -> None:
    """Print the cost of reading a candidate: SMILES parse against record, in process."""
    from rdkit import Chem

    from app.viewer.chem import pattern_screen

    sample_s, sample_r = smiles[:3000], records[:3000]
    best = {"parse SMILES": 1e9, "read record": 1e9}
    for _round in range(3):
        for name, read, items in (("parse SMILES", Chem.MolFromSmiles, sample_s),
                                  ("read record", pattern_screen.mol_of, sample_r)):
            started = time.perf_counter()
            for item in items:
                read(item)
            best[name] = min(best[name], (time.perf_counter() - started) * 1e6 / len(items))
    print(f"  a candidate read from its SMILES {best['parse SMILES']:.0f} us, from its record "
          f"{best['read record']:.0f} us ({best['parse SMILES'] / best['read record']:.1f}x)")


def main() -> None:
    """Print every figure of the module doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distinct", type=int, default=25_000)
    parser.add_argument("--scales", default="4,40")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--before-large", action="store_true")
    options = parser.parse_args()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="bench-substructure-"))
    workdir.mkdir(parents=True, exist_ok=True)
    smiles, patterns, records = pool(options.distinct, workdir)
    substructure.TOTAL_SECONDS = 7200.0  # measured whole (module doc)
    n = len(smiles)
    print(f"\n{n:,} distinct molecules")
    index_cost(smiles)
    sizes(smiles, patterns, records)
    per_candidate(smiles, records)
    timed_answer(molecules_of(smiles, patterns, records), "CCO")  # the child started
    scales = [int(k) for k in options.scales.split(",")]
    before = None
    for scale in scales:
        rows = n * scale
        print(f"\n{rows:,} molecules: the {n:,} {scale} times (module doc)")
        if before is None or options.before_large:
            measured, _, _ = timed_answer(
                molecules_of(smiles, patterns, records, scale, screened=False), "C#N")
            before, before_rows, said = measured, rows, "measured"
        else:
            said = f"{rows // before_rows} x the {before_rows:,}'s"
        now = before * rows / before_rows
        refused = f"; the default {DEFAULT_BUDGET:.0f} s budget refuses it (TooBroad)" \
            if now > DEFAULT_BUDGET else ""
        print(f"  before (every SMILES confirmed, a frame saved before): {now:.1f} s "
              f"({said}; {now / rows * 1e6:.0f} us a molecule){refused}")
        big = molecules_of(smiles, patterns, records, repeat=scale)
        print(f"  {'query':<28}{'after s':>9}{'ratio':>8}{'candidates':>12}{'matches':>10}"
              f"{'screen keeps':>14}{'screen ms':>11}")
        for name, query in QUERIES:
            if rows > 200_000 and query not in LARGE_QUERIES:
                continue
            after, candidates, matches = timed_answer(big, query)
            note = "  over the default budget: refused" if after > DEFAULT_BUDGET else ""
            print(f"  {name:<28}{after:9.2f}{now / after:7.0f}x{candidates:12,}"
                  f"{matches:10,}{candidates / rows:14.1%}{screen_ms(big, query):11.1f}"
                  f"{note}", flush=True)
        for name, query, other, meanwhile in (
                ("benzene", "c1ccccc1", "nitro", "[N+](=O)[O-]"),
                ("nitro", "[N+](=O)[O-]", "nitrile", "C#N")):
            first, page, during, whole = through_count(big, query, meanwhile)
            said = f"its progress after {first:.1f} s (every later look at once), a " \
                f"first page of 50 in a view's order in {page:.2f} s" \
                if first is not None else "exact at once (no count in the background)"
            print(f"  {name} as a visitor meets it (substructure_counting): {said}; "
                  f"exact answer after {whole:.1f} s; {other} asked meanwhile: "
                  f"{during:.2f} s", flush=True)


if __name__ == "__main__":
    main()
