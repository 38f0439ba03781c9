"""Hostile structure files through a real gunicorn: other visitors' pages stay quick, and a
visitor who hangs up leaves no work burning.

Ten visitors at once open the 3D page of a 40,000-atom complex (43 s a view when the
interface compared every atom pair in the worker's own threads) while a second visitor
reads another link's overview again and again: the overview's times stay those of a quiet
server (median and worst), the 3D pages answer (200, or 503 "busy, retry" past the work
gate's slots) and, once the file is read, all of them are served from the reading kept.
A visitor who opens the page of a 40 MB file (600,000 atoms: seconds of parsing) and
hangs up after a second leaves the server idle: its reading was stopped.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support import hostile_structures
from tests.support.processes import processes
from tests.support.servers import start_gunicorn, stop_gunicorn
from tests.support.structure_results import link_to_structures

pytestmark = pytest.mark.slow


def _timed(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    status = httpx.get(url, timeout=120).status_code
    return time.perf_counter() - started, status


def test_views_of_a_large_complex_leave_another_visitors_pages_quick(app, org, live_server):
    base, ids = link_to_structures(app, org, [hostile_structures.lattice_complex(40_000, 2)])
    other, _ids = link_to_structures(app, org, [hostile_structures.lattice_complex(300, 2)])
    page = f"{live_server.url}{base}/results/{ids[0]}/structure"
    overview = f"{live_server.url}{other.split('/pipelines/')[0]}"
    _timed(overview)  # each worker's first page (templates, imports) is not the point
    _timed(overview)
    quiet = [_timed(overview)[0] for _ in range(5)]
    with ThreadPoolExecutor(10) as pool:
        views = [pool.submit(_timed, page) for _ in range(10)]
        loaded = []
        while not all(v.done() for v in views) or len(loaded) < 5:
            loaded.append(_timed(overview)[0])
    statuses = [v.result()[1] for v in views]
    print(f"\noverview alone: median {statistics.median(quiet):.3f} s, worst "
          f"{max(quiet):.3f} s; beside ten 3D views: median {statistics.median(loaded):.3f}"
          f" s, worst {max(loaded):.3f} s over {len(loaded)}; 3D views "
          f"{sorted(round(v.result()[0], 2) for v in views)} s, statuses {statuses}")
    assert set(statuses) <= {200, 503} and 200 in statuses
    # Quiet: about 0.05 s. Beside the views it was 13 s an overview (5 in 65 s) when the
    # interface ran in the worker's threads; now they wait for the child, not the GIL.
    assert statistics.median(loaded) < max(1.0, 5 * statistics.median(quiet))
    assert max(loaded) < 5
    # Read once per worker, then served from what is kept (two workers: two readings).
    again = [_timed(page) for _ in range(4)]
    assert all(status == 200 for _t, status in again)
    assert max(t for t, _status in again) < 5


def _process_tree_cpu(root: int) -> float:
    """Return the CPU seconds used so far by ``root`` and its live descendants."""
    table = processes()
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, p in table.items() if p.parent in tree} - tree
        grown, tree = bool(more), tree | more
    return sum(table[pid].cpu_seconds for pid in tree if pid in table)


def test_a_visitor_who_hangs_up_leaves_no_reading_burning(app, org, db_url, tmp_path):
    huge = hostile_structures.huge(600_000)
    base, ids = link_to_structures(app, org, [huge, hostile_structures.lattice_complex(300, 2)])
    instance = tmp_path / "instance"
    instance.mkdir(exist_ok=True)
    server = start_gunicorn({"FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "live-secret",
                             "FLASK_ARTIFACT_DIR": str(tmp_path / "artifacts"),
                             "FLASK_INSTANCE_PATH": str(instance)}, tmp_path, workers=1)
    try:
        # The worker's structure child started (and its forkserver's imports done); the
        # measure sees the work a page does.
        started = _process_tree_cpu(server.process.pid)
        assert httpx.get(f"{server.url}{base}/results/{ids[1]}/structure",
                         timeout=120).status_code == 200
        assert _process_tree_cpu(server.process.pid) > started
        with pytest.raises(httpx.ReadTimeout):  # the visitor hangs up after a second
            httpx.get(f"{server.url}{base}/results/{ids[0]}/structure", timeout=1.0)
        time.sleep(1.0)  # the request notices within a poll, its child is killed
        before = _process_tree_cpu(server.process.pid)
        time.sleep(4.0)
        burnt = _process_tree_cpu(server.process.pid) - before
        print(f"\nCPU seconds used by the server in the 4 s after the hang-up: {burnt:.2f}")
        # The reading takes seconds of CPU (4 quiet; 1.9 s of it fell in this window when
        # nothing stopped it, 0.01 s when stopped); an idle server uses almost none.
        assert burnt < 0.5
    finally:
        stop_gunicorn(server)
