"""Time ``purge-expired`` on N expired results (default 100,000), SQLite and PostgreSQL.

One workspace, 10 expired pipelines of N/10 results, two artifact rows per result naming
a pool of 200 shared files (as the scaled demo does), one young pipeline that stays.
Prints, per database: rows deleted, batches, seconds, rows/s, and a repeat's seconds.
PostgreSQL: ``BENCH_PG_URL`` (default the tests' database), skipped if unreachable.

    .venv/bin/python bench/bench_purge.py [N]
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import artifact_storage
from app.jobs import retention
from app.platform.db import make_engine, migrate
from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.organizations import create_organization

PG_URL = os.environ.get("BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def seed(engine, store, n: int) -> None:
    now = utcnow()
    pool = [store.save(f"pooled file {i}".encode()) for i in range(200)]
    with engine.begin() as conn:
        _org, workspace, _key, _secret = create_organization(conn, "Bench")
        for p in range(11):
            made = now - timedelta(days=30 if p < 10 else 0)
            count = n // 10 if p < 10 else 100
            pipeline_id = new_id("pl")
            conn.execute(schema.pipelines.insert().values(
                id=pipeline_id, workspace_id=workspace.id, kind="protein_design",
                status="succeeded", result_count=count, created_at=made))
            results, artifacts = [], []
            for i in range(count):
                rid = new_id("res")
                results.append({"id": rid, "pipeline_id": pipeline_id, "created_at": made,
                                "metrics": {"iptm": 0.5}})
                for role in ("archive", "structure"):
                    path, size, sha = pool[(i * 2 + len(role)) % len(pool)]
                    artifacts.append({"id": new_id("art"), "result_id": rid, "role": role,
                                      "filename": "f", "content_type": "x", "size": size,
                                      "sha256": sha, "storage_path": path, "created_at": made})
            conn.execute(schema.results.insert(), results)
            conn.execute(schema.artifacts.insert(), artifacts)


def run(label: str, url: str, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(url)
        migrate(engine)
        config = {"ARTIFACT_DIR": tmp, "ARTIFACT_STORE": "file"}
        store = artifact_storage.open_store(config)
        start = time.perf_counter()
        seed(engine, store, n)
        seeded = time.perf_counter() - start
        start = time.perf_counter()
        tally = retention.purge_api(engine, config, utcnow())
        took = time.perf_counter() - start
        start = time.perf_counter()
        retention.purge_api(engine, config, utcnow())
        again = time.perf_counter() - start
        with engine.connect() as conn:
            left = conn.execute(sa.select(sa.func.count()).select_from(schema.results)).scalar()
        t = tally.totals
        print(f"{label:10} seeded {n:,} in {seeded:.1f} s | purged {t['results']:,} results, "
              f"{t['artifacts']:,} artifact rows, {t['pipelines']} pipelines, {t['files']} files "
              f"in {tally.batches} batches: {took:.1f} s ({t['results'] / took:,.0f} results/s)"
              f" | repeat {again:.2f} s | {left} young results kept")
        engine.dispose()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        run("SQLite", f"sqlite:///{tmp}/bench.sqlite3", n)
    schema_name = f"bench_{secrets.token_hex(4)}"
    try:
        admin = sa.create_engine(PG_URL)
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema_name}"'))
    except sa.exc.OperationalError:
        print("PostgreSQL  unreachable: skipped")
        return
    try:
        run("PostgreSQL", f"{PG_URL}?options=-csearch_path%3D{schema_name}", n)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema_name}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    main()
