"""Every hostile input through every route of a real gunicorn: the worst time and memory
per route.

Seeds one SQLite database with every hostile corpus the tests hold (``tests/support``):
records the engine wrote wrongly (``hostile_records``), runs with malformed progress and
errors (``hostile_runs``), molecules and sequences that stall careless chemistry
(``hostile_routes``), structure files that are huge, crowded, thousands of chains or
malformed (``hostile_structures``), and result archives whose ``pae.npz`` is a
declared-shape or compression-ratio bomb (``hostile_archives``). Then starts gunicorn (two
workers, the production ``gunicorn.conf.py``) on it and asks every route for each input,
one request at a time, as a visitor would.

Prints, for a first pass and then the same requests again, one row per route: requests,
statuses, the worst seconds, and the worst growth of peak resident memory of any server
process over one request (the gunicorn workers and the budgeted children they fork: each
process's ``VmHWM`` is reset through ``/proc/<pid>/clear_refs`` before the request and read
after it). Linux only.

    .venv/bin/python bench/bench_hostile_corpus.py [--quick]

``--quick`` leaves out the 600,000-atom file (its parse alone takes seconds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.platform.db import get_engine  # noqa: E402
from tests.support import (  # noqa: E402
    factories,
    hostile_archives,
    hostile_records,
    hostile_routes,
    hostile_runs,
    hostile_structures,
)
from tests.support.apps import make_org, make_test_app  # noqa: E402
from tests.support.databases import migrated_database  # noqa: E402
from tests.support.processes import processes  # noqa: E402
from tests.support.servers import start_gunicorn, stop_gunicorn  # noqa: E402
from tests.support.structure_results import link_to_structures  # noqa: E402

_DEPICTION = re.compile(r'src="(/share/[^"]+/depictions/[^"]+\.svg[^"]*)"')


def _tree(root: int) -> set[int]:
    """Return ``root`` and its live descendants."""
    table = processes()
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, p in table.items() if p.parent in tree} - tree
        grown, tree = bool(more), tree | more
    return {pid for pid in tree if pid in table}


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Probe:
    """Times requests to the server and weighs the memory its processes take for each."""

    def __init__(self, server):
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=180)
        self.rows: dict[str, dict] = defaultdict(
            lambda: {"n": 0, "statuses": defaultdict(int), "seconds": 0.0, "mb": 0.0,
                     "worst": ""})

    def get(self, route: str, path: str, label: str = "") -> str:
        """Ask ``path``, reading the whole answer; file it under ``route``."""
        before = {}
        for pid in _tree(self.server.process.pid):
            before[pid] = _status_kb(pid, "VmRSS")
            with contextlib.suppress(OSError):  # a process that just ended
                Path(f"/proc/{pid}/clear_refs").write_text("5")
        started = time.perf_counter()
        answer = self.http.get(path)
        body = answer.text if answer.headers.get("content-type", "").startswith(
            ("text/", "application/json")) else ""
        seconds = time.perf_counter() - started
        grown = max([_status_kb(pid, "VmHWM") - before.get(pid, 0)
                     for pid in _tree(self.server.process.pid)] or [0]) / 1024
        row = self.rows[route]
        row["n"] += 1
        row["statuses"][answer.status_code] += 1
        if seconds > row["seconds"]:
            row["seconds"], row["worst"] = seconds, label
        row["mb"] = max(row["mb"], grown)
        return body

    def report(self, title: str) -> None:
        print(f"\n{title}")
        print("\n| route | requests | statuses | worst s | worst input | peak +MB |")
        print("|---|---|---|---|---|---|")
        for route, row in sorted(self.rows.items(), key=lambda item: -item[1]["seconds"]):
            statuses = ", ".join(f"{code} x{n}" for code, n in sorted(row["statuses"].items()))
            print(f"| {route} | {row['n']} | {statuses} | {row['seconds']:.2f} | "
                  f"{row['worst']} | {row['mb']:.0f} |")


def _seed(app, org, quick: bool) -> dict:
    """Store every corpus; return what the routes need."""
    records = hostile_records.seed(app, org)
    runs = hostile_runs.seed(app, org)
    link, molecules, proteins = hostile_routes.seed(app, org)
    files = {
        "40k atoms, 2 chains": hostile_structures.lattice_complex(40_000, 2),
        "40k atoms, 4,000 chains": hostile_structures.lattice_complex(40_000, 4000, 1),
        "crowded 20k atoms": hostile_structures.crowded(20_000),
        **({} if quick else {"600k atoms": hostile_structures.huge(600_000)}),
        **{f"malformed: {name}": data for name, data in hostile_structures.malformed().items()},
        "healthy 300 atoms": hostile_structures.lattice_complex(300, 2),
    }
    base, ids = link_to_structures(app, org, list(files.values()))
    structures = dict(zip(files, ids, strict=True))
    archives = {
        "pae.npz declaring 300,000 x 300,000": hostile_archives.declared_shape(
            (300_000, 300_000)),
        "pae.npz doubly deflated 4,000 tokens": hostile_archives.doubly_deflated(4000),
    }
    with get_engine(app).begin() as conn:
        directory = app.config["ARTIFACT_DIR"]
        pae_pipeline, pae_ids = factories.insert_pipeline(conn, org.workspace_id,
                                                          "protein_design", len(archives))
        for result_id, data in zip(pae_ids, archives.values(), strict=True):
            factories.insert_artifact(conn, directory, content=data, role="archive",
                                      filename=f"{result_id}.zip",
                                      content_type="application/zip", result_id=result_id)
            factories.insert_artifact(conn, directory, role="structure",
                                      content=hostile_structures.lattice_complex(300, 2),
                                      filename=f"{result_id}.cif",
                                      content_type="chemical/x-mmcif", result_id=result_id)
    pae_link = factories.make_link(app, org, pipeline_ids=[pae_pipeline])
    return {"records": records, "runs": runs, "chem": (link, molecules, proteins),
            "structures": (base, structures), "archives": (
                f"/share/{pae_link.id}/pipelines/{pae_pipeline}",
                dict(zip(archives, pae_ids, strict=True)))}


def _drive(probe: Probe, seeded: dict) -> None:
    records = seeded["records"]
    for path in hostile_records.routes(records):
        route = re.sub(r"/share/[^/]+/pipelines/[^/?]+", "<run>", path)
        route = re.sub(r"/results/[^/?]+", "/results/<id>", route)
        probe.get(f"records: {route.split('?')[0]}{'?sort' if 'sort=' in route else ''}",
                  path, "hostile records")
    runs = seeded["runs"]
    probe.get("runs: overview", f"/share/{runs.link}", "malformed progress and error")
    probe.get("runs: API share read", f"/compute/v1/share/{runs.link}",
              "malformed progress and error")
    for name, pipeline in runs.hostile.items():
        probe.get("runs: results table", f"/share/{runs.link}/pipelines/{pipeline}", name)
    link, molecules, proteins = seeded["chem"]
    pages = [probe.get("chemistry: results table", f"/share/{link}/pipelines/{molecules}",
                       "hostile molecules")]
    for kind, pipeline in (("molecules", molecules), ("sequences", proteins)):
        for result_id in hostile_routes.result_ids(probe.app, pipeline):
            page = probe.get("chemistry: result page",
                             f"/share/{link}/pipelines/{pipeline}/results/{result_id}",
                             f"hostile {kind}")
            if kind == "molecules":
                pages.append(page)
    for page in pages:
        for image in set(_DEPICTION.findall(page)):
            probe.get("chemistry: depiction", image.replace("&amp;", "&"), "hostile molecule")
    probe.get("chemistry: substructure view",
              f"/share/{link}/pipelines/{molecules}?smarts=C1CCCCC1", "hostile molecules")
    for extension in ("csv", "json", "sdf", "zip"):
        probe.get(f"chemistry: export.{extension}",
                  f"/share/{link}/pipelines/{molecules}/export.{extension}", "hostile molecules")
    for extension in ("csv", "json", "fasta"):
        probe.get(f"chemistry: export.{extension}",
                  f"/share/{link}/pipelines/{proteins}/export.{extension}", "hostile sequences")
    base, structures = seeded["structures"]
    healthy = structures["healthy 300 atoms"]
    for name, result_id in structures.items():
        probe.get("structure: result page", f"{base}/results/{result_id}", name)
        probe.get("structure: 3D page", f"{base}/results/{result_id}/structure", name)
        probe.get("structure: compare", f"{base}/compare?a={result_id}&b={healthy}", name)
        probe.get("structure: download", f"{base}/results/{result_id}/artifacts/structure",
                  name)
    probe.get("structure: export.zip", f"{base}/export.zip", "every hostile file")
    base, archives = seeded["archives"]
    for name, result_id in archives.items():
        probe.get("PAE: 3D page", f"{base}/results/{result_id}/structure", name)
        probe.get("PAE: pae.json", f"{base}/results/{result_id}/structure/pae.json", name)
        probe.get("PAE: pae.alphafold.json",
                  f"{base}/results/{result_id}/structure/pae.alphafold.json", name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="leave out the 600k-atom file")
    quick = parser.parse_args().quick
    tmp = Path(tempfile.mkdtemp(prefix="hostile-corpus-"))
    url, drop = migrated_database(tmp)
    app = make_test_app(url, tmp)
    org = make_org(app)
    started = time.perf_counter()
    seeded = _seed(app, org, quick)
    print(f"seeded in {time.perf_counter() - started:.1f} s")
    instance = tmp / "instance"
    instance.mkdir(exist_ok=True)
    server = start_gunicorn({"FLASK_DATABASE_URL": url, "FLASK_SECRET_KEY": "test-secret",
                             "FLASK_ARTIFACT_DIR": app.config["ARTIFACT_DIR"],
                             "FLASK_INSTANCE_PATH": str(instance)}, tmp)
    probe = Probe(server)
    probe.app = app
    try:
        for title in ("First pass: each worker's first use of a route included (imports, "
                      "children started), nothing kept yet",
                      "Second pass: the same requests again (readings and answers kept)"):
            started = time.perf_counter()
            _drive(probe, seeded)
            print(f"every route in {time.perf_counter() - started:.1f} s; "
                  f"{len(_tree(server.process.pid))} server processes, {os.cpu_count()} cores")
            probe.report(title)
            probe.rows.clear()
    finally:
        stop_gunicorn(server)
        drop()


if __name__ == "__main__":
    main()
