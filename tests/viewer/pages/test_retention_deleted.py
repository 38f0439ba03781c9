"""A link whose runs lost their data to retention says so (issue 19 item 11).

On the demo with a shorter retention (10 days), ``purge-expired --as-of`` a week ahead
deletes the data of the runs made more than 3 days ago (protein design 5.6 days, redesign
4.2, sequence redesign 3.1) and keeps the others. The overview still lists them, as
"Deleted on <date> under the workspace's data-retention policy" without a link, under a
notice "3 of the 9 runs ..."; their pages (results, a result, exports, 3D, downloads)
answer 410 with that sentence, never a 500 or the 404 of a gone link.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from app.platform.db import get_engine
from app.store import schema
from app.viewer.core import run_kinds
from app.viewer.pages import deleted
from tests.support.html import one, page, text

PURGED = ("protein_design", "protein_redesign", "protein_sequence_redesign")


@pytest.fixture
def purged_demo(app, runner, demo) -> dict:
    """The demo (a copy of this test's own), its workspace keeping data 10 days, purged as
    of a week from now."""
    with get_engine(app).begin() as conn:
        conn.execute(schema.workspaces.update()
                     .where(schema.workspaces.c.id == demo["workspace_id"])
                     .values(data_retention_unit="days", data_retention_value=10))
    as_of = (datetime.now(UTC) + timedelta(days=7)).isoformat()
    result = runner.invoke(args=["purge-expired", "--as-of", as_of])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["totals"]["pipelines"] == len(PURGED)
    return demo


def test_the_overview_says_what_retention_deleted(client, purged_demo):
    link = purged_demo["share_links"]["public"]["id"]
    page = client.get(f"/share/{link}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    total = len(purged_demo["pipelines"]) + len(purged_demo["predictions"])
    assert f"3 of the {total} runs shared through this link were deleted under data " \
           "retention" in html
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    cards = re.findall(r'<li class="card card-deleted">(.*?)</li>', html, re.S)
    assert len(cards) == len(PURGED)
    for card in cards:
        assert "Deleted on <time" in card and f">{today}</time> under the workspace's " \
               "data-retention policy" in card
        assert "<a " not in card  # no way into data that is gone
    for kind in PURGED:
        pipeline_id = purged_demo["pipelines"][kind]
        assert pipeline_id in html
        assert f"/pipelines/{pipeline_id}\"" not in html
    kept = purged_demo["pipelines"]["small_molecule_design"]
    assert f"/share/{link}/pipelines/{kept}" in html


def test_pages_of_a_deleted_run_answer_410_with_the_message(client, purged_demo):
    link = purged_demo["share_links"]["public"]["id"]
    pipeline_id = purged_demo["pipelines"]["protein_design"]
    base = f"/share/{link}/pipelines/{pipeline_id}"
    for path in (base, f"{base}?sort=-iptm&embed=1", f"{base}/results/res_0000000000",
                 f"{base}/export.csv", f"{base}/results/res_0000000000/artifacts/archive"):
        answer = client.get(path)
        assert answer.status_code == 410, (path, answer.status_code)
        text = answer.get_data(as_text=True)
        assert "under the workspace's data-retention policy" in text, path
        assert "Deleted on" in text and "The link itself is still valid" in text
    # A kept run of the same link still opens.
    kept = purged_demo["pipelines"]["small_molecule_design"]
    assert client.get(f"/share/{link}/pipelines/{kept}").status_code == 200


def test_the_notice_the_cards_and_the_way_back_from_a_deleted_run(client, purged_demo):
    """What the Chromium test read (tests/browser), element by element."""
    link = purged_demo["share_links"]["public"]["id"]
    total = len(purged_demo["pipelines"]) + len(purged_demo["predictions"])
    overview = page(client, f"/share/{link}")
    assert f"3 of the {total} runs shared through this link were deleted under " \
           "data retention" in text(one(overview, ".retention-notice"))
    cards = overview.select(".card-deleted")
    assert len(cards) == 3
    assert "under the workspace's data-retention policy" in text(cards[0])
    assert cards[0].select("a") == []
    pipeline_id = purged_demo["pipelines"]["protein_design"]
    gone = page(client, f"/share/{link}/pipelines/{pipeline_id}", 410)
    main = text((gone.select("main") or gone.select("body"))[0])
    assert "under the workspace's data-retention policy" in main
    assert "The link itself is still valid" in main
    back = [a for a in gone.select("a") if text(a) == "See what this link still shares"]
    assert len(back) == 1
    assert back[0]["href"].split("viewer.test", 1)[-1] == f"/share/{link}"


def test_a_stub_without_progress_is_an_unknown_kind_not_a_guess():
    record = {"pipeline": "boltzprot", "pipeline_version": "1.0", "input": None,
              "progress": None, "data_deleted_at": "2026-05-04T10:00:00Z"}
    kind = run_kinds.pipeline_kind(record)
    assert not run_kinds.is_known(kind) and "boltzprot" in kind.label
    assert deleted.deleted_on(record) == "2026-05-04"
    # With its progress kept (as our API does), the kind is still recognised.
    screen = {**record, "progress": {"num_proteins_screened": 3, "num_proteins_failed": 0,
                                     "total_proteins_to_screen": 3}}
    assert run_kinds.pipeline_kind_key(screen) == "protein_library_screen"
