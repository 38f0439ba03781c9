"""No molecule takes the server down (issue 22, item 1): the routes, through gunicorn.

The hostile corpus (``hostile_routes``: the issue's 40-atom ring that killed both workers,
larger rings, cages, long chains, huge and unparsable SMILES; sequences with record
separators, 100,000 residues and no alphabet) goes through every chemistry and export
route of a real server with two workers, while a second visitor keeps loading an ordinary
page. Every route answers 200 well inside gunicorn's 60 s worker timeout, no worker is
killed, the visitor's page stays fast, and records keep their boundaries.
"""

from __future__ import annotations

import statistics
import threading
import time

import httpx
import pytest

from tests.support import hostile_routes
from tests.support.hostile_molecules import CORPUS
from tests.support.servers import start_gunicorn, stop_gunicorn

pytestmark = pytest.mark.slow


@pytest.mark.slow  # starts gunicorn
def test_hostile_data_through_every_route_while_another_visitor_reads(app, org, db_url,
                                                                       tmp_path):
    link, molecules, proteins = hostile_routes.seed(app, org)
    server = start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "test-secret",
        "FLASK_ARTIFACT_DIR": app.config["ARTIFACT_DIR"],
        "FLASK_INSTANCE_PATH": app.instance_path,
    }, tmp_path, workers=2)
    visitor_times: list[float] = []
    done = threading.Event()

    def visitor() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            while not done.is_set():
                started = time.perf_counter()
                assert http.get(f"/share/{link}").status_code == 200
                visitor_times.append(time.perf_counter() - started)
                time.sleep(0.05)

    reader = threading.Thread(target=visitor)
    try:
        reader.start()
        slowest, failures = hostile_routes.drive(
            server.url, link, molecules, proteins,
            hostile_routes.result_ids(app, molecules), hostile_routes.result_ids(app, proteins))
        done.set()
        reader.join(timeout=60)
        with httpx.Client(base_url=server.url, timeout=60) as http:
            sdf = http.get(f"/share/{link}/pipelines/{molecules}/export.sdf").text
            fasta = http.get(f"/share/{link}/pipelines/{proteins}/export.fasta").text
    finally:
        done.set()
        stop_gunicorn(server)
    print("slowest seconds per route:", {k: round(v, 2) for k, v in sorted(slowest.items())})
    print(f"visitor: {len(visitor_times)} pages, median "
          f"{statistics.median(visitor_times):.3f} s, worst {max(visitor_times):.3f} s")
    assert failures == []
    assert "WORKER TIMEOUT" not in server.log_text()
    # Inside gunicorn's 60 s timeout by far; the ring alone took over 60 s.
    assert max(slowest.values()) < 20, slowest
    # The other visitor never waited behind the hostile work.
    assert max(visitor_times) < 5, max(visitor_times)
    # One SDF record per molecule, one FASTA record per designed chain: no injected ones.
    assert sdf.count("\n$$$$\n") == len(CORPUS)
    headers = [line for line in fasta.splitlines() if line.startswith(">")]
    assert len(headers) == len(hostile_routes.SEQUENCES), headers
