"""Time API pages in-process, before and after, side by side: an older checkout against this tree.

Run from the repository root:

    git worktree add /tmp/before <older revision>
    .venv/bin/python bench/bench_api_page.py --before /tmp/before [--rounds 40] [--profile]
    .venv/bin/python bench/bench_api_page.py --before /tmp/before --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test

For each checkout a child process (this script with ``--child``, ``cwd`` and ``sys.path``
set to that checkout) seeds its own database with the same deterministic data (SQLite in
a temporary directory, or a fresh PostgreSQL schema): a ``protein_design`` pipeline of
150 results, each with an archive and a structure artifact row and every third with a
warning, a link over it and 5 more pipelines and 2 predictions with artifacts, and 20
workspaces. It then times, through the Flask test client of ``create_app()`` (routing,
auth, validation, SQL, presigning, serialisation; no network):

- the 100-row results page ``GET /compute/v1/share/<id>/pipelines/<pid>/results?limit=100``;
- a workspace list ``GET /compute/v1/admin/workspaces?limit=20`` (admin key);
- a share read ``GET /compute/v1/share/<id>``.

Many short rounds alternate between the two children (first one, then the other, then the
other way round), so load on a shared machine falls on both alike; absolute numbers still
move with that load, the ratio much less. It prints the median milliseconds of
each case for both checkouts and their ratio (before / after), and with ``--profile`` the
top functions of a cProfile run of the results page in each checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
CASES = ("results page (100 rows)", "workspace list (20)", "share read")
AMINO = "ACDEFGHIKLMNPQRSTVWY"
BINDER = ("binding_confidence", "helix_fraction", "iptm", "loop_fraction",
          "min_interaction_pae", "sheet_fraction", "structure_confidence")


# --- child: runs inside one checkout -------------------------------------------------------

def seed(conn, artifact_dir: str) -> dict:
    """Insert the benchmark's data with the checkout's own store; return ids and the key."""
    from datetime import timedelta

    from app.platform.ids import new_id
    from app.platform.timeutil import utcnow
    from app.store import schema
    from app.store.organizations import create_organization
    from app.store.share_links import create_share_link

    rng = random.Random(7)
    _org, workspace, _key, secret = create_organization(conn, "Bench Org")
    now = utcnow()
    for index in range(19):
        conn.execute(schema.workspaces.insert().values(
            id=new_id("ws"), organization_id=workspace.organization_id, name=f"WS {index}",
            is_default=False, data_retention_unit="days", data_retention_value=7,
            created_at=now, updated_at=now, archived_at=None,
        ))
    pipelines = []
    for index in range(6):
        pipeline_id = new_id("pl")
        count = 150 if index == 0 else 3
        conn.execute(schema.pipelines.insert().values(
            id=pipeline_id, workspace_id=workspace.id, kind="protein_design",
            name=f"bench {index}", status="succeeded", input=None, result_count=count,
            created_at=now,
        ))
        results, artifacts = [], []
        for n in range(count):
            rid = new_id("res")
            results.append({
                "id": rid, "pipeline_id": pipeline_id, "created_at": now, "variant": None,
                "entities": [
                    {"type": "protein", "chain_ids": ["A"], "modifications": [],
                     "value": "".join(rng.choice(AMINO) for _ in range(80))},
                    {"type": "ligand_ccd", "chain_ids": ["B"], "value": "ATP"},
                ],
                "metrics": {m: round(rng.random(), 4) for m in BINDER},
                "warnings": [{"code": "low_confidence", "message": "Low confidence"}]
                if n % 3 == 0 else None,
                "smiles": None, "adme": None, "external_id": None,
            })
            artifacts += [_artifact(new_id("art"), rid, None, role, ext, now)
                          for role, ext in (("archive", "zip"), ("structure", "cif"))]
        conn.execute(schema.results.insert(), results)
        conn.execute(schema.artifacts.insert(), artifacts)
        pipelines.append(pipeline_id)
    predictions = []
    for application in ("structure_and_binding", "adme"):
        prediction_id = new_id("pred")
        conn.execute(schema.predictions.insert().values(
            id=prediction_id, workspace_id=workspace.id, application=application, name=None,
            status="succeeded", inputs={"entities": []}, outputs={"best_sample": {}},
            created_at=now, completed_at=now,
        ))
        conn.execute(schema.artifacts.insert(),
                     [_artifact(new_id("art"), None, prediction_id, "structure", "cif", now)])
        predictions.append(prediction_id)
    link = create_share_link(
        conn, organization_id=workspace.organization_id, workspace_id=workspace.id,
        access_mode="public", allowed_emails=[], pipeline_ids=pipelines,
        prediction_ids=predictions, expires_at=utcnow() + timedelta(days=1),
    )
    return {"link": link.id, "pipeline": pipelines[0], "key": secret}


def _artifact(artifact_id, result_id, prediction_id, role, ext, now) -> dict:
    return {"id": artifact_id, "result_id": result_id, "prediction_id": prediction_id,
            "role": role, "filename": f"{artifact_id}.{ext}", "content_type": "text/plain",
            "size": 1000, "sha256": "0" * 64, "storage_path": f"00/00/{artifact_id}",
            "created_at": now}


def child(root: str, database_url: str, tmp: str) -> None:
    """Seed, then answer ``time N`` and ``profile N`` lines on stdin with JSON lines."""
    sys.path.insert(0, root)
    os.environ["FLASK_INSTANCE_PATH"] = str(Path(tmp) / "instance")
    import sqlalchemy as sa

    from app import create_app
    from app.platform.db import migrate

    engine = sa.create_engine(database_url)
    migrate(engine)
    with engine.begin() as conn:
        ids = seed(conn, str(Path(tmp) / "artifacts"))
    engine.dispose()
    app = create_app({"DATABASE_URL": database_url, "SECRET_KEY": "bench",
                      "ARTIFACT_DIR": str(Path(tmp) / "artifacts"),
                      "PUBLIC_URL": "http://viewer.test"})
    client = app.test_client()
    admin = {"x-api-key": ids["key"]}
    requests = {
        CASES[0]: (f"/compute/v1/share/{ids['link']}/pipelines/{ids['pipeline']}/results"
                   "?limit=100", {}),
        CASES[1]: ("/compute/v1/admin/workspaces?limit=20", admin),
        CASES[2]: (f"/compute/v1/share/{ids['link']}", {}),
    }
    for url, headers in requests.values():  # Warm-up, and a check that each case answers.
        for _ in range(10):
            response = client.get(url, headers=headers)
            assert response.status_code == 200, (url, response.data[:300])
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command, count = line.split()
        if command == "time":
            samples = {name: [] for name in requests}
            for _ in range(int(count)):
                for name, (url, headers) in requests.items():
                    started = time.perf_counter()
                    client.get(url, headers=headers)
                    samples[name].append((time.perf_counter() - started) * 1000)
            print(json.dumps(samples), flush=True)
        elif command == "profile":
            case = os.environ.get("BENCH_PROFILE_CASE", CASES[0])
            print(json.dumps(profile(client, requests[case][0], int(count))), flush=True)


def profile(client, url: str, count: int) -> str:
    """Return the top of a cProfile run of ``count`` requests of ``url``, by own time."""
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(count):
        client.get(url)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(18)
    return out.getvalue()


# --- parent: runs both children and compares ---------------------------------------------

class Child:
    """A timing child process of one checkout."""

    def __init__(self, label: str, root: Path, database_url: str, tmp: Path):
        self.label = label
        tmp.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--child", str(root), database_url, str(tmp)],
            cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        self.hello = self.read()
        self.samples: dict[str, list[float]] = {name: [] for name in CASES}

    def read(self):
        """Return the child's next JSON line."""
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.label}: the timing child exited")
        return json.loads(line)

    def ask(self, command: str):
        """Send one command and return the child's answer."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        """End the child."""
        self.process.stdin.close()
        self.process.wait(timeout=30)


def compare(before: Path, after: Path, database_url, tmp: Path, args) -> None:
    """Run both children on their own databases and print the side-by-side medians."""
    children = [Child("before", before, database_url("before"), tmp / "before"),
                Child("after", after, database_url("after"), tmp / "after")]
    try:
        for number in range(args.rounds):
            for current in (children if number % 2 == 0 else children[::-1]):
                for name, values in current.ask(f"time {args.requests}").items():
                    current.samples[name].extend(values)
        print(f"{'case':<26}{'before ms':>11}{'after ms':>11}{'ratio':>8}"
              f"   ({args.rounds} rounds x {args.requests} requests, medians)")
        for name in CASES:
            old, new = (statistics.median(c.samples[name]) for c in children)
            print(f"{name:<26}{old:>11.2f}{new:>11.2f}{old / new:>7.2f}x")
        if args.profile:
            for current in children:
                print(f"\n--- profile, {current.label} ({current.process.args[3]}): results "
                      f"page x {args.profile_requests} ---")
                print(current.ask(f"profile {args.profile_requests}").strip())
    finally:
        for current in children:
            current.close()


def main() -> None:
    """Parse arguments and compare the two checkouts on SQLite or PostgreSQL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, type=Path,
                        help="an older checkout, e.g. git worktree add /tmp/before <rev>")
    parser.add_argument("--after", default=HERE.parent.parent, type=Path)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--requests", type=int, default=10, help="per case and round")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-requests", type=int, default=200)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        help="PostgreSQL URL; a temporary schema per checkout is dropped after")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.postgres:
            print("database: SQLite (temporary file per checkout)")
            compare(args.before.resolve(), args.after.resolve(),
                    lambda label: f"sqlite:///{tmp / f'{label}.sqlite3'}", tmp, args)
            return
        import sqlalchemy as sa

        names = {label: f"bench_{label}_{secrets.token_hex(4)}" for label in ("before", "after")}
        admin = sa.create_engine(args.postgres)
        with admin.begin() as conn:
            for name in names.values():
                conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
        separator = "&" if "?" in args.postgres else "?"
        print("database: PostgreSQL (a schema per checkout)")
        try:
            compare(args.before.resolve(), args.after.resolve(),
                    lambda label: f"{args.postgres}{separator}options=-csearch_path%3D"
                                  f"{names[label]}", tmp, args)
        finally:
            with admin.begin() as conn:
                for name in names.values():
                    conn.execute(sa.text(f'DROP SCHEMA "{name}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
    else:
        main()
