"""Time a share-link results page at the start and deep inside a 100,000-result pipeline.

Builds a pipeline of ``--results`` results (each with an archive and a structure artifact
row) in a fresh SQLite file in a temporary directory, or in a fresh schema of PostgreSQL
with ``--postgres URL`` (or ``BENCH_DATABASE_URL``), then requests pages of 100 through
the Flask test client (the full request path: routing, validation, SQL, presigning,
JSON) and prints the median of each case and the deep/first ratio (target: within 1.5x).

    .venv/bin/python bench/bench_results_pages.py [--results 100000] [--repeat 300]
    .venv/bin/python bench/bench_results_pages.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import create_app
from app.platform.db import get_engine, migrate
from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.organizations import create_organization
from app.store.share_links import create_share_link

METRICS = ("binding_confidence", "helix_fraction", "iptm", "loop_fraction",
           "min_interaction_pae", "sheet_fraction", "structure_confidence")
AMINO = "ACDEFGHIKLMNPQRSTVWY"


def build(conn, n_results: int, batch: int = 5000) -> tuple[str, str, list[str]]:
    """Insert an org, a pipeline of ``n_results`` results with artifacts, and a link."""
    rng = random.Random(7)
    _org, workspace, _key, _secret = create_organization(conn, "Bench Org")
    pipeline_id = new_id("pl")
    now = utcnow()
    conn.execute(schema.pipelines.insert().values(
        id=pipeline_id, workspace_id=workspace.id, kind="protein_design", name="bench",
        status="succeeded", input=None, result_count=n_results, created_at=now,
    ))
    ids: list[str] = []
    for start in range(0, n_results, batch):
        rows, artifacts = [], []
        for _ in range(min(batch, n_results - start)):
            rid = new_id("res")
            ids.append(rid)
            sequence = "".join(rng.choice(AMINO) for _ in range(80))
            rows.append({
                "id": rid, "pipeline_id": pipeline_id, "created_at": now, "variant": None,
                "entities": [{"type": "protein", "chain_ids": ["A"], "value": sequence,
                              "modifications": []}],
                "metrics": {m: round(rng.random(), 4) for m in METRICS},
                "warnings": None, "smiles": None, "adme": None, "external_id": None,
            })
            for role, ext, mime in (("archive", "zip", "application/zip"),
                                    ("structure", "cif", "chemical/x-mmcif")):
                artifacts.append({
                    "id": new_id("art"), "result_id": rid, "prediction_id": None,
                    "role": role, "filename": f"{rid}.{ext}", "content_type": mime,
                    "size": 1000, "sha256": "0" * 64, "storage_path": f"00/00/{rid}.{ext}",
                    "created_at": now,
                })
        conn.execute(schema.results.insert(), rows)
        conn.execute(schema.artifacts.insert(), artifacts)
    link = create_share_link(
        conn, organization_id=workspace.organization_id, workspace_id=workspace.id,
        access_mode="public", allowed_emails=[], pipeline_ids=[pipeline_id],
        prediction_ids=[], expires_at=utcnow() + timedelta(days=1),
    )
    return link.id, pipeline_id, ids


def time_cases(client, url: str, cases: dict[str, dict], repeat: int) -> dict[str, float]:
    """Return the median milliseconds of each case, requests interleaved across cases."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for params in cases.values():  # Warm-up: caches, query plans, imports.
        for _ in range(5):
            assert client.get(url, query_string=params).status_code == 200
    for _ in range(repeat):
        for name, params in cases.items():
            started = time.perf_counter()
            response = client.get(url, query_string=params)
            samples[name].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
            assert len(response.get_json()["data"]) == 100
    return {name: statistics.median(values) for name, values in samples.items()}


def run(database_url: str, label: str, n_results: int, repeat: int, tmp: Path) -> None:
    """Build the data in ``database_url`` and print the timings."""
    engine = sa.create_engine(database_url)
    migrate(engine)
    started = time.perf_counter()
    with engine.begin() as conn:
        link_id, pipeline_id, ids = build(conn, n_results)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(sa.text("ANALYZE"))
    engine.dispose()
    print(f"[{label}] built {n_results:,} results in {time.perf_counter() - started:.1f} s")
    app = create_app({"DATABASE_URL": database_url, "SECRET_KEY": "bench",
                      "ARTIFACT_DIR": str(tmp / "artifacts"), "PUBLIC_URL": None})
    url = f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results"
    cases = {
        "first page": {"limit": 100},
        "deep page (after_id, 150 from the end)": {"limit": 100, "after_id": ids[-150]},
        "deep page (before_id, 50 from the end)": {"limit": 100, "before_id": ids[-50]},
        "middle page (after_id)": {"limit": 100, "after_id": ids[len(ids) // 2]},
    }
    medians = time_cases(app.test_client(), url, cases, repeat)
    first = medians["first page"]
    for name, value in medians.items():
        print(f"[{label}] {name:<42} median {value:7.2f} ms  ratio {value / first:5.2f}")
    worst = max(medians.values()) / first
    verdict = "OK" if worst <= 1.5 else "OVER TARGET"
    print(f"[{label}] worst deep/first ratio {worst:.2f} (target <= 1.5): {verdict}")
    get_engine(app).dispose()


def main() -> None:
    """Parse arguments and run the benchmark on SQLite and, if asked, PostgreSQL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        help="PostgreSQL URL; a temporary schema is created and dropped")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        run(f"sqlite:///{tmp / 'bench.sqlite3'}", "sqlite", args.results, args.repeat, tmp)
        if args.postgres:
            schema_name = f"bench_{secrets.token_hex(4)}"
            admin = sa.create_engine(args.postgres)
            with admin.begin() as conn:
                conn.execute(sa.text(f'CREATE SCHEMA "{schema_name}"'))
            separator = "&" if "?" in args.postgres else "?"
            try:
                run(f"{args.postgres}{separator}options=-csearch_path%3D{schema_name}",
                    "postgresql", args.results, args.repeat, tmp)
            finally:
                with admin.begin() as conn:
                    conn.execute(sa.text(f'DROP SCHEMA "{schema_name}" CASCADE'))
                admin.dispose()


if __name__ == "__main__":
    main()
