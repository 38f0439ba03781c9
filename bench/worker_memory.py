"""Memory of N workers holding the same index: each a process that loads the pipeline's
frame as a gunicorn worker would (``answers.current_frame``) and reads every column.

Usage (from bench_explore.py, or alone on a workdir it made):
``python bench/worker_memory.py --workdir DIR --pipeline PIPELINE_ID [--workers 4]``.

Each worker reports its PSS (proportional set size: shared pages divided among the
processes that map them) and RSS from /proc/<pid>/smaps_rollup while all N are alive,
minus its own before loading the frame. Measured twice side by side: with frame sharing
off (``FRAME_CACHE_DIR=""``: every worker its own copy, as before) and on (the default:
mapped files in the instance folder).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import numpy as np
from app import create_app
from app.viewer.explore import answers
from app.viewer.store import get_engine, result_index

def memory():
    found = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss"):
            found[name] = int(rest.split()[0]) / 1024
    return found

config = json.loads(sys.argv[2])
app = create_app(config, instance_path=sys.argv[3])
with app.app_context():
    with get_engine().connect() as conn:
        state = result_index.get(conn, sys.argv[4])
    before = memory()
    data = answers.current_frame(state)
    touched = 0.0  # read every page of every column, as whole-set answers do
    for array in (*data.numbers.values(), data.warning_flags.bits):
        touched += float(np.nansum(array))
    for array in data.texts.values():
        touched += float(len(np.unique(array[:: max(1, len(array) // 1000)])))
        touched += float(np.count_nonzero(array == array[:1]))
print(json.dumps(before), flush=True)
sys.stdin.read()  # held open until the parent has measured every worker
"""


def measure(workdir: Path, pipeline: str, workers: int, share: bool) -> dict:
    """Start ``workers`` processes on the same index; return their mean PSS/RSS growth."""
    config = {"DATABASE_URL": f"sqlite:///{workdir}/db.sqlite",
              "ARTIFACT_DIR": str(workdir / "artifacts")}
    if not share:
        config["FRAME_CACHE_DIR"] = ""
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(ROOT), json.dumps(config),
                               str(workdir / "instance"), pipeline],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(workers)]
    grown = []
    try:
        befores = [json.loads(p.stdout.readline()) for p in procs]
        for proc, before in zip(procs, befores, strict=True):
            now = {}
            for line in Path(f"/proc/{proc.pid}/smaps_rollup").read_text().splitlines():
                name, _, rest = line.partition(":")
                if name in ("Rss", "Pss"):
                    now[name] = int(rest.split()[0]) / 1024
            grown.append({k: now[k] - before[k] for k in ("Pss", "Rss")})
    finally:
        for proc in procs:
            proc.stdin.close()
            proc.wait()
    return {k: sum(g[k] for g in grown) / len(grown) for k in ("Pss", "Rss")}


def report(workdir: Path, pipeline: str, workers: int = 4) -> None:
    """Print the per-worker and total memory of ``workers`` workers, sharing off vs on."""
    for share in (False, True, False, True):  # alternated: noise hits both alike
        found = measure(workdir, pipeline, workers, share)
        name = "shared (mapped files)" if share else "per-worker copies    "
        print(f"{workers} workers holding the index, {name}: PSS +{found['Pss']:.0f} MB "
              f"per worker ({workers * found['Pss']:.0f} MB in all), RSS +{found['Rss']:.0f} MB")


def main() -> None:
    """Measure a workdir that bench_explore.py made."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--workers", type=int, default=4)
    options = parser.parse_args()
    report(options.workdir, options.pipeline, options.workers)


if __name__ == "__main__":
    main()
