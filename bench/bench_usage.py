"""Time a 31-day HOUR usage report over 1,000,000 usage records.

Fills a fresh database (a SQLite file in a temporary directory, or a schema of PostgreSQL
with ``--postgres URL`` / ``BENCH_DATABASE_URL``) with ``--records`` usage records of one
organization spread over 31 days (5 workspaces, 6 applications), plus as many of another
organization that the report must skip. Then it times, interleaved:

- the endpoint through the Flask test client: one page of 744 hourly buckets
  (``limit=1000``), and the walk over every page grouped by application;
- the bare SQL aggregate the endpoint stands on (same table, same filters, no HTTP,
  no validation, no JSON);
- page 1 and page 5 of the report grouped by application, 100 rows a page (a page's
  cost must not grow with its position).

It prints the medians and the endpoint/bare ratio.

    .venv/bin/python bench/bench_usage.py [--records 1000000] [--repeat 7]
    .venv/bin/python bench/bench_usage.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_auth import temporary_database

from app import create_app
from app.platform.db import get_engine, migrate
from app.store import schema
from app.store.organizations import create_organization
from app.store.workspaces import create_workspace

APPLICATIONS = ("structure_and_binding", "small_molecule_design",
                "small_molecule_library_screen", "protein_design", "protein_library_screen",
                "adme")
START = datetime(2026, 3, 1, tzinfo=UTC)
DAYS = 31

# The statement the endpoint's store function emits, written by hand. The LIMIT (page size
# + 1) stays: without it PostgreSQL picks a serial plan that is slower than the endpoint's.
BARE_SQL = """
SELECT recorded_at - recorded_at % 3600 AS bucket, SUM(quantity) AS quantity
FROM usage_records
WHERE organization_id = :org AND recorded_at >= :start AND recorded_at < :end
GROUP BY recorded_at - recorded_at % 3600
ORDER BY bucket
LIMIT 1001
"""


def build(url: str, n_records: int, batch: int = 50_000) -> tuple[str, str]:
    """Fill the database; return the organization id and its admin key."""
    engine = sa.create_engine(url)
    migrate(engine)
    rng = random.Random(11)
    start = int(START.timestamp())
    span = DAYS * 86400
    with engine.begin() as conn:
        org, default_ws, _key, secret = create_organization(conn, "Bench Org")
        other, other_ws, _k, _s = create_organization(conn, "Other Org")
        workspaces = [default_ws.id] + [
            create_workspace(conn, organization_id=org.id, name=f"w{i}", retention_unit="days",
                             retention_value=7).id for i in range(4)]
    for owner, spaces, count in ((org.id, workspaces, n_records),
                                 (other.id, [other_ws.id], n_records // 10)):
        done = 0
        while done < count:
            rows = [{"organization_id": owner, "workspace_id": rng.choice(spaces),
                     "application": rng.choice(APPLICATIONS), "quantity": rng.randint(1, 50),
                     "recorded_at": start + rng.randrange(span)}
                    for _ in range(min(batch, count - done))]
            with engine.begin() as conn:
                conn.execute(schema.usage_records.insert(), rows)
            done += len(rows)
    with engine.begin() as conn:
        conn.execute(sa.text("ANALYZE"))
    engine.dispose()
    return org.id, secret


def median_ms(samples: list[float]) -> float:
    """Return the median of ``samples`` (seconds) in milliseconds."""
    return statistics.median(samples) * 1000


def run(label: str, base_url: str | None, n_records: int, repeat: int, tmp: Path) -> None:
    """Build the data, time the cases, print the results."""
    with temporary_database(base_url, tmp, "usage") as url:
        started = time.perf_counter()
        org_id, key = build(url, n_records)
        print(f"[{label}] inserted {n_records:,} (+{n_records // 10:,} of another org) "
              f"usage records in {time.perf_counter() - started:.1f} s")
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench",
                          "ARTIFACT_DIR": str(tmp / "artifacts")})
        client = app.test_client()
        engine = get_engine(app)
        end = START + timedelta(days=DAYS)
        params = {"starting_at": START.isoformat(), "ending_at": end.isoformat(),
                  "window_size": "HOUR", "limit": 1000}
        bind = {"org": org_id, "start": int(START.timestamp()), "end": int(end.timestamp())}

        def endpoint() -> int:
            response = client.get("/compute/v1/admin/usage", query_string=params,
                                  headers={"x-api-key": key})
            assert response.status_code == 200, response.data
            body = response.get_json()
            assert not body["has_more"]
            return sum(b["quantity"] for b in body["data"])

        def grouped_walk() -> int:
            query, total = {**params, "group_by[]": "application"}, 0
            while True:
                body = client.get("/compute/v1/admin/usage", query_string=query,
                                  headers={"x-api-key": key}).get_json()
                total += sum(b["quantity"] for b in body["data"])
                if not body["has_more"]:
                    return total
                query = {**query, "page": body["next_page"]}

        def bare() -> int:
            with engine.connect() as conn:
                return sum(int(r.quantity) for r in conn.execute(sa.text(BARE_SQL), bind))

        paged = {**params, "group_by[]": "application", "limit": 100}
        cursors = [None]  # the cursors of pages 1..5 of the grouped report, 100 rows each
        for _ in range(4):
            query = {**paged, **({"page": cursors[-1]} if cursors[-1] else {})}
            cursors.append(client.get("/compute/v1/admin/usage", query_string=query,
                                      headers={"x-api-key": key}).get_json()["next_page"])

        def page_of(number: int):
            def one_page() -> int:
                query = {**paged, **({"page": cursors[number - 1]} if number > 1 else {})}
                body = client.get("/compute/v1/admin/usage", query_string=query,
                                  headers={"x-api-key": key}).get_json()
                assert len(body["data"]) == 100
                return -1  # not a total: left out of the cross-check
            return one_page

        cases = {"endpoint, 744 buckets": endpoint, "bare SQL aggregate": bare,
                 "endpoint, grouped by application, all pages": grouped_walk,
                 "grouped page 1 of 100 rows": page_of(1),
                 "grouped page 5 of 100 rows": page_of(5)}
        totals = {name: fn() for name, fn in cases.items()}  # warm-up and cross-check
        assert len({t for t in totals.values() if t >= 0}) == 1, totals
        samples = {name: [] for name in cases}
        for _ in range(repeat):
            for name, fn in cases.items():
                t0 = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t0)
        bare_ms = median_ms(samples["bare SQL aggregate"])
        for name in cases:
            value = median_ms(samples[name])
            print(f"[{label}] {name:<45} median {value:8.1f} ms  ratio to bare SQL "
                  f"{value / bare_ms:5.2f}")
        first, fifth = (median_ms(samples[f"grouped page {n} of 100 rows"]) for n in (1, 5))
        print(f"[{label}] page 5 / page 1 of the grouped report: {fifth / first:.2f}")
        engine.dispose()


def main() -> None:
    """Parse arguments and run on SQLite and, if asked, PostgreSQL."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        help="PostgreSQL URL; a temporary schema is created and dropped")
    parser.add_argument("--no-sqlite", action="store_true", help="only run PostgreSQL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.no_sqlite:
            run("sqlite", None, args.records, args.repeat, tmp)
        if args.postgres:
            run("postgresql", args.postgres, args.records, args.repeat, tmp)


if __name__ == "__main__":
    main()
