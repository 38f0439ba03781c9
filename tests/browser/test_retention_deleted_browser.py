"""A visitor of a link whose runs retention deleted is told so (issue 19 item 11).

The real CLI seeds the demo, its workspace is given 10 days of retention and
``purge-expired --as-of`` a week ahead deletes the data of the three oldest pipelines.
The overview says "3 of the 9 runs ... were deleted" at the top and shows those runs as
deleted cards (no link); the deleted pipeline's page answers 410 with the same sentence.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from tests.browser.conftest import PHONE, Visitor, seeded_site_env
from tests.support.databases import ROOT
from tests.support.servers import start_gunicorn, stop_gunicorn


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The demo, purged a week ahead under a 10-day retention, served by gunicorn."""
    tmp = tmp_path_factory.mktemp("retention_deleted")
    env, seed = seeded_site_env(tmp)
    engine = sa.create_engine(env["FLASK_DATABASE_URL"])
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE workspaces SET data_retention_unit = 'days', "
                             "data_retention_value = 10 WHERE id = :id"),
                     {"id": seed["workspace_id"]})
    engine.dispose()
    as_of = (datetime.now(UTC) + timedelta(days=7)).isoformat()
    subprocess.run([sys.executable, "-m", "flask", "--app", "app", "purge-expired",
                    "--as-of", as_of], cwd=ROOT, env={**os.environ, **env},
                   capture_output=True, text=True, check=True, timeout=300)
    server = start_gunicorn(env, tmp)
    yield server, seed
    stop_gunicorn(server)


def test_the_overview_and_the_deleted_pipeline_say_what_retention_deleted(
        site, browser, shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    total = len(seed["pipelines"]) + len(seed["predictions"])
    for viewport, name in ((None, "desktop"), (PHONE, "phone")):
        visitor = Visitor(browser, viewport)
        visitor.goto(f"{server.url}/share/{link}")
        notice = visitor.page.locator(".retention-notice")
        assert notice.is_visible()
        assert f"3 of the {total} runs shared through this link were deleted under " \
               "data retention" in notice.inner_text()
        cards = visitor.page.locator(".card-deleted")
        assert cards.count() == 3
        assert "under the workspace's data-retention policy" in cards.first.inner_text()
        assert cards.first.locator("a").count() == 0
        visitor.page.screenshot(path=str(shots_dir / f"retention-overview-{name}.png"),
                                full_page=True)
        visitor.close()
        assert visitor.errors == []

    visitor = Visitor(browser, allow=("status of 410",))
    pipeline_id = seed["pipelines"]["protein_design"]
    visitor.goto(f"{server.url}/share/{link}/pipelines/{pipeline_id}", status=410)
    text = visitor.page.locator("main, body").first.inner_text()
    assert "under the workspace's data-retention policy" in text
    assert "The link itself is still valid" in text
    visitor.page.get_by_role("link", name="See what this link still shares").click()
    visitor.page.wait_for_url(f"{server.url}/share/{link}")
    visitor.page.screenshot(path=str(shots_dir / "retention-after-back.png"))
    visitor.close()
    assert visitor.errors == []
