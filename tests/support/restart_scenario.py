"""The PostgreSQL restart under load, as one function, and a command that runs it against
any checkout (to compare this tree with an older main):

    .venv/bin/python -m tests.support.restart_scenario [REPO_ROOT ...]

For each root it starts a private PostgreSQL server, runs that checkout's ``init-db`` and
``seed-demo``, serves it with its own ``gunicorn.conf.py`` (two workers), puts four
threads of load on the API and the viewer, stops the database (fast shutdown, as an
operator's restart), starts it again, and prints the count of each status and of
tracebacks in the server's log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.fault_harness import (
    Load,
    PrivatePostgres,
    free_port,
    pg_bin,
    private_postgres_server,
)
from tests.support.polling import wait_until


@dataclass
class Outcome:
    """What a run saw: the load's tallies, and snapshots taken between its phases."""

    load: Load
    before: Counter
    recovering: Counter
    after: Counter
    recovered_in: float

    def recovered(self) -> Counter:
        """Return the tallies of the last phase, once the database was back."""
        return self.after - self.recovering


def targets(base: str, link_id: str, pipeline_id: str) -> dict[str, str]:
    """Return the URLs the load asks: two of the API, two pages of the viewer."""
    return {
        "api share": f"{base}/compute/v1/share/{link_id}",
        "api results": f"{base}/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results",
        "page overview": f"{base}/share/{link_id}",
        "page results": f"{base}/share/{link_id}/pipelines/{pipeline_id}",
    }


def run(postgres: PrivatePostgres, urls: dict[str, str], *, while_down=None,
        warm: float = 1.5, down: float = 2.0, measure: float = 1.5) -> Outcome:
    """Restart ``postgres`` while four threads ask ``urls``; return what they got.

    ``while_down()`` is called once the database is stopped (the test asks ``/readyz``).
    Recovery is waited for on the first URL (bounded), then measured for ``measure`` s.
    """
    probe = next(iter(urls.values()))
    load = Load(urls, threads=4).start()
    try:
        time.sleep(warm)
        before = load.snapshot()
        postgres.stop()
        if while_down is not None:
            while_down()
        time.sleep(down)
        postgres.start()
        started = time.monotonic()
        wait_until(lambda: _status(probe) == 200, timeout=20)
        recovered_in = time.monotonic() - started
        # Requests in flight at the restart may still meet dead connections; let them end.
        time.sleep(0.5)
        recovering = load.snapshot()
        time.sleep(measure)
        after = load.snapshot()
    finally:
        load.stop()
    return Outcome(load, before, recovering, after, recovered_in)


def _status(url: str) -> int:
    try:
        return httpx.get(url, timeout=10).status_code
    except httpx.HTTPError:
        return 0


def _serve(root: Path, postgres: PrivatePostgres, workdir: Path) -> tuple[subprocess.Popen,
                                                                              str, dict, Path]:
    """Migrate and seed ``root``'s app on ``postgres``, serve it; return what was made."""
    port = free_port()
    env = {**os.environ, "FLASK_DATABASE_URL": postgres.url,
           "FLASK_INSTANCE_PATH": str(workdir / "instance"),
           "FLASK_ARTIFACT_DIR": str(workdir / "artifacts"),
           "FLASK_SECRET_KEY": "scenario", "FLASK_PUBLIC_URL": f"http://127.0.0.1:{port}"}
    flask = [sys.executable, "-m", "flask", "--app", "app"]
    subprocess.run([*flask, "init-db"], cwd=root, env=env, check=True, timeout=120,
                   stdout=subprocess.DEVNULL)
    demo = json.loads(subprocess.run([*flask, "seed-demo", "--json"], cwd=root, env=env,
                                     check=True, timeout=600, capture_output=True).stdout)
    log_path = workdir / "gunicorn.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(root / "gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}", "--workers", "2",
         "--access-logfile", str(log_path), "--error-logfile", str(log_path), "wsgi:app"],
        cwd=root, env=env)
    base = f"http://127.0.0.1:{port}"
    if not wait_until(lambda: _status(f"{base}/healthz") == 200, timeout=90, interval=0.3):
        process.kill()
        raise RuntimeError(f"gunicorn of {root} did not start")
    return process, base, demo, log_path


def main(roots: list[str]) -> None:
    """Run the scenario against each checkout in ``roots`` and print its counts."""
    import tempfile

    bin_dir = pg_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL server binaries not found")
    for root in map(Path, roots):
        with private_postgres_server(bin_dir) as postgres, \
                tempfile.TemporaryDirectory() as workdir:
            process, base, demo, log_path = _serve(root.resolve(), postgres, Path(workdir))
            try:
                urls = targets(base, demo["share_links"]["public"]["id"],
                               demo["pipelines"]["protein_design"])
                outcome = run(postgres, urls)
            finally:
                process.terminate()
                process.wait(timeout=30)
            log = log_path.read_text(errors="replace")
            recovered = Counter(status for _label, status in outcome.recovered().elements())
            print(f"{root}: statuses {dict(sorted(outcome.load.statuses().items()))}; "
                  f"by target {dict(sorted(outcome.load.counts.items()))}; "
                  f"tracebacks in the log: {log.count('Traceback')}; "
                  f"API answering again {outcome.recovered_in:.1f} s after the restart; "
                  f"after that: {dict(sorted(recovered.items()))}",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["."])
