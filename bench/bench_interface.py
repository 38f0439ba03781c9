"""Time what the 3D page computes from a structure file, before and after, side by side.

For large complexes (``tests/support/hostile_structures.lattice_complex``: 16,000, 40,000
and 80,000 heavy atoms in two intertwined chains; 40,000 atoms in 4,000 chains) and
atoms piled on one point, each checkout reads the same bytes the way its 3D page does
(``structure.model.read``: parse, confidence, interface), in a subprocess of its own,
round after round, alternating which goes first; printed: the median seconds, and the
interface residues found (the same count means the same answer). A reading that overruns
``--timeout`` is printed as ">T".

With ``--page`` each checkout serves instead the whole 3D page of a result whose
structure is that file (its own app on a fresh SQLite database, the Flask test client;
nothing of the file kept, after one page of a small file has warmed the worker as
gunicorn's first requests do): printed, the page's seconds and HTTP status.

    .venv/bin/python bench/bench_interface.py BEFORE_ROOT [AFTER_ROOT] [--rounds 3] [--page]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from tests.support import hostile_structures  # noqa: E402

CASES = {
    "16k atoms, 2 chains": lambda: hostile_structures.lattice_complex(16_000, 2),
    "40k atoms, 2 chains": lambda: hostile_structures.lattice_complex(40_000, 2),
    "80k atoms, 2 chains": lambda: hostile_structures.lattice_complex(80_000, 2),
    "40k atoms, 4,000 chains": lambda: hostile_structures.lattice_complex(40_000, 4_000, 1),
    "20k atoms piled up": lambda: hostile_structures.crowded(20_000),
}

_READ = """
import sys, time
from app.viewer.structure import model
data = open(sys.argv[1], "rb").read()
started = time.perf_counter()
found = model.read(data)
print(time.perf_counter() - started, len(found.interface))
"""

_PAGE = """
import pathlib, sys, tempfile, time
from app.platform.db import get_engine
from tests.support import factories
from tests.support.apps import make_org, make_test_app
from tests.support.databases import migrated_database
data = open(sys.argv[1], "rb").read()
tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-page-"))
url, drop = migrated_database(tmp)
app = make_test_app(url, tmp)
org = make_org(app)
small = open(sys.argv[2], "rb").read()
with get_engine(app).begin() as conn:
    pid, ids = factories.insert_pipeline(conn, org.workspace_id, "protein_design", 2)
    for rid, structure in zip(ids, (small, data)):
        for role, content, name, kind in (
                ("archive", b"PK\\x05\\x06", "a.zip", "application/zip"),
                ("structure", structure, "s.cif", "chemical/x-mmcif")):
            factories.insert_artifact(conn, app.config["ARTIFACT_DIR"], content=content,
                                      role=role, filename=name, content_type=kind,
                                      result_id=rid)
link = factories.make_link(app, org, pipeline_ids=[pid])
client = app.test_client()
pages = [f"/share/{link.id}/pipelines/{pid}/results/{rid}/structure" for rid in ids]
assert client.get(pages[0]).status_code == 200
started = time.perf_counter()
answer = client.get(pages[1])
print(time.perf_counter() - started, answer.status_code)
drop()
"""


def _time(root: Path, path: Path, timeout: float, page: bool = False
          ) -> tuple[float | None, int | None]:
    """Return (seconds, interface residues) of ``root``'s reading of ``path``; with
    ``page`` (seconds, HTTP status) of its 3D page."""
    try:
        small = path.with_name("small.cif")
        small.write_bytes(hostile_structures.lattice_complex(300, 2))
        done = subprocess.run([sys.executable, "-c", _PAGE if page else _READ, str(path),
                               str(small)], cwd=root,
                              env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
                                   "PYTHONDONTWRITEBYTECODE": "1"},
                              capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None, None
    seconds, residues = done.stdout.split()
    return float(seconds), int(residues)


def main() -> None:
    """Write the files, time both checkouts on each, print medians side by side."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=HERE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--page", action="store_true")
    args = parser.parse_args()
    roots = {"before": args.before.resolve(), "after": args.after.resolve()}
    found_as = "status" if args.page else "residues"
    print(f"{'file':26} {'MB':>5} {'before s':>9} {'after s':>9} {found_as:>10} before/after",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-interface-") as tmp:
        for name, make in CASES.items():
            path = Path(tmp) / "structure.cif"
            path.write_bytes(make())
            times: dict[str, list] = {n: [] for n in roots}
            found: dict[str, int | None] = {}
            for index in range(args.rounds):
                for label in (list(roots) if index % 2 == 0 else list(roots)[::-1]):
                    seconds, residues = _time(roots[label], path, args.timeout, args.page)
                    times[label].append(seconds)
                    found[label] = residues
            shown = {n: (f"{statistics.median(t):.2f}" if None not in t else f">{args.timeout:g}")
                     for n, t in times.items()}
            print(f"{name:26} {path.stat().st_size / 1e6:5.1f} {shown['before']:>9} "
                  f"{shown['after']:>9} {found['before']!s:>10}/{found['after']!s:<10}",
                  flush=True)


if __name__ == "__main__":
    main()
