"""The ``make run`` demo stays complete with live links (issue 19 item 11).

Each test runs what ``make run`` runs: ``refresh-demo instance/demo.json`` at start-up (the
command is read from the Makefile), ``purge-expired`` as the hourly loop does, then the
start-up step again, and reads the demo back through the API a visitor's viewer uses.

A test's first seeding (on its empty database) is the test process's seeded demo copied in
(``first_seed_copied``: the rows and files ``seed_demo`` makes); every re-seed the upkeep
decides on runs ``seed_demo`` itself.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.demo.upkeep import banner
from app.platform.db import get_engine
from app.store import schema
from tests.support.apps import make_test_app
from tests.support.demo import first_seed_copied

ROOT = Path(__file__).resolve().parents[2]
# The demo's own sizes (app.synthetic): the IL-6 design stopped at 260 of 300.
DEMO_COUNTS = {"protein_design": 260, "protein_redesign": 24, "protein_sequence_redesign": 30,
               "protein_library_screen": 36, "small_molecule_design": 28,
               "small_molecule_library_screen": 40, "small_molecule_explore": 38}


def startup_args(path: Path) -> list[str]:
    """Return the arguments of the start-up step exactly as the Makefile gives them."""
    makefile = (ROOT / "Makefile").read_text()
    found = re.search(r"flask --app app (refresh-demo) (instance/demo\.json)", makefile)
    assert found, "make run must run refresh-demo instance/demo.json at start-up"
    return [found.group(1), str(path)]


@pytest.fixture
def demo_app(db_url, tmp_path):
    """The app on an empty database; the commands' first ``seed_demo`` is a copy."""
    app = make_test_app(db_url, tmp_path)
    with first_seed_copied(app):
        yield app
    get_engine(app).dispose()


def run(app, *args: str) -> str:
    result = app.test_cli_runner().invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return result.output


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def assert_complete_and_live(app, demo: dict) -> None:
    """All seven pipelines with their seeded result counts, both predictions, both links
    granting access (the public one read as a visitor reads it) until a future date."""
    client = app.test_client()
    now = datetime.now(UTC)
    public = demo["share_links"]["public"]
    read = client.get(f"/compute/v1/share/{public['id']}")
    assert read.status_code == 200, read.get_json()
    body = read.get_json()
    assert when(body["expires_at"]) > now + timedelta(days=1)
    assert [p["id"] for p in body["pipelines"]] == list(demo["pipelines"].values())
    assert [p["id"] for p in body["predictions"]] == list(demo["predictions"].values())
    with get_engine(app).connect() as conn:
        counts = dict(conn.execute(
            sa.select(schema.results.c.pipeline_id, sa.func.count())
            .group_by(schema.results.c.pipeline_id)).all())
        links = {row.id: row for row in conn.execute(sa.select(schema.share_links))}
    assert {kind: counts.get(pid, 0) for kind, pid in demo["pipelines"].items()} == DEMO_COUNTS
    assert demo["result_counts"] == DEMO_COUNTS
    for link in demo["share_links"].values():
        stored = links[link["id"]]
        assert stored.archived_at is None
        assert stored.expires_at.replace(tzinfo=UTC) > now + timedelta(days=1)
        assert link["url"] == f"http://viewer.test/share/{link['id']}"
    # The page a visitor opens: the overview lists every pipeline of the link.
    page = client.get(f"/share/{public['id']}")
    assert page.status_code == 200
    assert all(pid in page.get_data(as_text=True) for pid in demo["pipelines"].values())


@pytest.mark.parametrize("days_ahead", [7, 15])
@pytest.mark.slow
def test_a_purge_days_ahead_then_the_startup_step_leaves_a_complete_demo(demo_app, tmp_path,
                                                                          days_ahead):
    path = tmp_path / "instance" / "demo.json"
    assert "Demo seeded (no demo yet)" in run(demo_app, *startup_args(path))
    first = json.loads(path.read_text())
    assert_complete_and_live(demo_app, first)

    as_of = (datetime.now(UTC) + timedelta(days=days_ahead)).isoformat()
    purged = json.loads(run(demo_app, "purge-expired", "--as-of", as_of).splitlines()[-1])
    out = run(demo_app, *startup_args(path))
    demo = json.loads(path.read_text())
    assert_complete_and_live(demo_app, demo)
    if days_ahead == 15:  # past the 14 days the demo workspace keeps: all of it went
        assert purged["totals"]["pipelines"] == 7 and purged["totals"]["predictions"] == 2
        assert "Demo seeded" in out and "was deleted under retention" in out
        assert demo["share_links"]["public"]["id"] != first["share_links"]["public"]["id"]
    else:  # a week: the issue's case (7 days' retention lost every run); nothing is lost
        assert purged["totals"]["pipelines"] == 0
        assert out.startswith("Demo complete") and demo["share_links"] == first["share_links"]


@pytest.mark.slow
def test_data_near_its_retention_is_reseeded_before_the_purge_takes_it(demo_app, tmp_path):
    path = tmp_path / "instance" / "demo.json"
    run(demo_app, *startup_args(path))
    first = json.loads(path.read_text())
    with get_engine(demo_app).begin() as conn:  # the oldest run is 13.5 days old now
        conn.execute(schema.pipelines.update()
                     .where(schema.pipelines.c.id == first["pipelines"]["protein_design"])
                     .values(created_at=datetime.utcnow() - timedelta(days=13.5)))
    out = run(demo_app, *startup_args(path))
    assert "protein_design reaches the workspace's retention within a day" in out
    demo = json.loads(path.read_text())
    assert demo["organization_id"] != first["organization_id"]
    assert_complete_and_live(demo_app, demo)


def test_expiring_links_are_renewed_in_place(demo_app, tmp_path):
    path = tmp_path / "instance" / "demo.json"
    run(demo_app, *startup_args(path))
    first = json.loads(path.read_text())
    with get_engine(demo_app).begin() as conn:  # one expired, one about to
        for mode, hours in (("public", -2), ("email", 3)):
            conn.execute(schema.share_links.update()
                         .where(schema.share_links.c.id == first["share_links"][mode]["id"])
                         .values(expires_at=datetime.utcnow() + timedelta(hours=hours)))
    assert demo_app.test_client().get(
        f"/compute/v1/share/{first['share_links']['public']['id']}").status_code == 404
    out = run(demo_app, *startup_args(path))
    assert "renewed the public and email link" in out
    demo = json.loads(path.read_text())
    assert [link["id"] for link in demo["share_links"].values()] == \
        [link["id"] for link in first["share_links"].values()]
    assert_complete_and_live(demo_app, demo)
    expires = when(demo["share_links"]["email"]["expires_at"])
    assert timedelta(days=6.9) < expires - datetime.now(UTC) < timedelta(days=7.1)


@pytest.mark.slow
def test_a_demo_file_from_seed_demo_alone_is_replaced_by_a_counted_one(demo_app, tmp_path):
    path = tmp_path / "instance" / "demo.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(run(demo_app, "seed-demo", "--json"))  # what make run used to keep
    out = run(demo_app, *startup_args(path))
    assert "Demo seeded (the demo file predates result counts)" in out
    assert_complete_and_live(demo_app, json.loads(path.read_text()))


def test_the_banner_says_where_the_sign_in_code_appears():
    demo = {"admin_key": "bz_live_k", "share_links": {
        "public": {"id": "sl_pub", "url": "http://127.0.0.1:8000/share/sl_pub"},
        "email": {"id": "sl_mail", "url": "http://127.0.0.1:8000/share/sl_mail",
                  "allowed_emails": ["alice@example.com", "bob@example.org"]}}}
    text = banner(demo, "http://127.0.0.1:8765", mail_server=None)
    assert "http://127.0.0.1:8765/share/sl_pub" in text
    assert "http://127.0.0.1:8765/share/sl_mail" in text and ":8000" not in text
    assert "Sign in as alice@example.com (or bob@example.org)" in text
    assert "the sign-in code appears in this terminal" in text
    assert "MAIL_SERVER is not set: sign-in message to alice@example.com was not sent" in text
    mailed = banner(demo, "http://127.0.0.1:8765", mail_server="smtp.example.com")
    assert "mailed through smtp.example.com" in mailed and "this terminal" not in mailed
