"""Time API-key authentication with 10 keys in the database and with 100,000.

Builds two fresh databases (SQLite files in a temporary directory, or schemas of
PostgreSQL with ``--postgres URL`` / ``BENCH_DATABASE_URL``): one holding 10 keys, one
holding ``--keys`` keys (inserted with executemany). Then, alternating between the two,
it times (a) the bare authentication path (``authenticate`` inside a request context,
connection checkout and commit included) and (b) a whole request through the Flask test
client (``GET /compute/v1/admin/workspaces?limit=1``), and prints the medians and the
large/small ratio (target: within 1.2).

    .venv/bin/python bench/bench_auth.py [--keys 100000] [--repeat 3000]
    .venv/bin/python bench/bench_auth.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import create_app
from app.platform.db import close_conn, get_engine, migrate
from app.platform.ids import new_id
from app.platform.timeutil import utcnow
from app.service.auth import authenticate
from app.store import api_keys, schema
from app.store.organizations import create_organization


def build(database_url: str, n_keys: int, batch: int = 10_000) -> str:
    """Create an organization plus other keys up to ``n_keys``; return the admin key."""
    engine = sa.create_engine(database_url)
    migrate(engine)
    with engine.begin() as conn:
        _org, _ws, _key, secret = create_organization(conn, "Bench Org")
        crowd, crowd_ws, _k, _s = create_organization(conn, "Crowd")
        now = utcnow()
        remaining = n_keys - 2
        while remaining > 0:
            rows = []
            for _ in range(min(batch, remaining)):
                full = "bz_live_" + secrets.token_urlsafe(32)
                rows.append({
                    "id": new_id("key"), "organization_id": crowd.id,
                    "workspace_id": crowd_ws.id, "key_type": "workspace", "name": "crowd",
                    "key_hash": api_keys.hash_key(full),
                    "key_prefix": full[:12], "allowed_ips": [], "livemode": True,
                    "is_active": True, "created_at": now, "expires_at": None,
                    "last_used_at": None,
                })
            conn.execute(schema.api_keys.insert(), rows)
            remaining -= len(rows)
    with engine.begin() as conn:
        count = conn.execute(sa.select(sa.func.count()).select_from(schema.api_keys)).scalar()
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("ANALYZE"))
    engine.dispose()
    assert count == n_keys, count
    return secret


@contextmanager
def temporary_database(base_url: str | None, tmp: Path, name: str):
    """Yield a URL of an empty database: a SQLite file, or a PostgreSQL schema."""
    if base_url is None:
        yield f"sqlite:///{tmp / f'{name}.sqlite3'}"
        return
    schema_name = f"bench_{name}_{secrets.token_hex(4)}"
    admin = sa.create_engine(base_url)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema_name}"'))
    separator = "&" if "?" in base_url else "?"
    try:
        yield f"{base_url}{separator}options=-csearch_path%3D{schema_name}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema_name}" CASCADE'))
        admin.dispose()


def time_auth(app, key: str) -> float:
    """Milliseconds of one bare authentication, connection and commit included."""
    with app.test_request_context(headers={"x-api-key": key}):
        started = time.perf_counter()
        authenticate(require_admin=True)
        close_conn(None)
        return (time.perf_counter() - started) * 1000


def time_request(client, key: str) -> float:
    """Milliseconds of one whole request that authenticates."""
    started = time.perf_counter()
    response = client.get("/compute/v1/admin/workspaces?limit=1", headers={"x-api-key": key})
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.data
    return elapsed


def run(label: str, base_url: str | None, n_keys: int, repeat: int, tmp: Path) -> None:
    """Build both databases and print the medians and ratios."""
    with temporary_database(base_url, tmp, "small") as small_url, \
            temporary_database(base_url, tmp, "large") as large_url:
        cases = {}
        for name, url, count in (("10 keys", small_url, 10), (f"{n_keys:,} keys", large_url,
                                                              n_keys)):
            started = time.perf_counter()
            key = build(url, count)
            print(f"[{label}] built {count:,} keys in {time.perf_counter() - started:.1f} s")
            app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench",
                              "ARTIFACT_DIR": str(tmp / "artifacts")})
            cases[name] = (app, app.test_client(), key)
        for app, client, key in cases.values():  # warm-up: imports, pools, query plans
            for _ in range(50):
                time_auth(app, key)
                time_request(client, key)
        auth = {name: [] for name in cases}
        whole = {name: [] for name in cases}
        for _ in range(repeat):
            for name, (app, client, key) in cases.items():
                auth[name].append(time_auth(app, key))
                whole[name].append(time_request(client, key))
        small, large = cases
        for title, samples in (("authenticate()", auth), ("whole request", whole)):
            a, b = statistics.median(samples[small]), statistics.median(samples[large])
            verdict = "OK" if b / a <= 1.2 else "OVER TARGET"
            print(f"[{label}] {title:<15} median {small}: {a:.3f} ms, {large}: {b:.3f} ms, "
                  f"ratio {b / a:.3f} (target <= 1.2): {verdict}")
        for app, _client, _key in cases.values():
            get_engine(app).dispose()


def main() -> None:
    """Parse arguments and run on SQLite and, if asked, PostgreSQL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3000)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        help="PostgreSQL URL; temporary schemas are created and dropped")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        run("sqlite", None, args.keys, args.repeat, tmp)
        if args.postgres:
            run("postgresql", args.postgres, args.keys, args.repeat, tmp)


if __name__ == "__main__":
    main()
