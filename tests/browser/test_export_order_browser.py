"""Picks keep their order (issue 19 item 3), in Chromium over the seeded demo: sort by
binding confidence in the page, tick the top 10 (in another order), export FASTA and the
structures ZIP from the shortlist: the files hold them best first with their ranks.
Screenshot: /tmp/shots/exports. (The page's own export menu of a top-10 view is server
HTML: tests/viewer/results/test_views.py.)"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.browser.conftest import api_records, download_bytes

pytestmark = [pytest.mark.browser]
SHOTS = Path("/tmp/shots/exports")
KIND = "protein_design"


def _view(server, seed) -> str:
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")


def _fasta_names(text: str) -> list[list[str]]:
    return [line[1:].split(" ")[0].split("|") for line in text.splitlines()
            if line.startswith(">")]


def test_the_top_10_ticked_in_a_sorted_view_export_best_first(site, visitor, shots_dir):
    server, seed = site
    records = api_records(server, seed, KIND)
    best = [r["id"] for r in sorted(records, key=lambda r: (-r["metrics"]["binding_confidence"],
                                                             r["id"]))[:10]]
    page = visitor.page
    # Start from the run's own order, then sort by binding confidence with its header.
    visitor.goto(_view(server, seed) + "?sort=created_at")
    header = page.locator("#results-table thead th", has_text="Binding confidence")
    with page.expect_navigation():
        header.locator("a").first.click()
    assert "sort=-binding_confidence" in page.url
    rows = page.locator("#results-table tbody tr[data-result-id]")
    shown = [tr.get_attribute("data-result-id") for tr in rows.all()[:10]]
    assert shown == best
    # Tick them bottom-up: the order of ticking is not the order a reader means.
    for rid in reversed(shown):
        page.get_by_role("checkbox", name=f"Add {rid} to the shortlist").check()
    bar = page.locator("#shortlist")
    assert bar.locator("h2").inner_text() == "10 in shortlist"
    SHOTS.mkdir(parents=True, exist_ok=True)
    bar.scroll_into_view_if_needed()
    for folder in (shots_dir, SHOTS):
        page.screenshot(path=str(folder / "shortlist-top10.png"))

    fasta = download_bytes(page, bar.get_by_role("link", name="FASTA")).decode()
    names = _fasta_names(fasta)
    assert [n[2] for n in names] == best
    assert [n[0] for n in names] == [str(i) for i in range(1, 11)]
    assert all(n[1].startswith(f"#{n[0]}_") for n in names)  # ranked as the run is

    archive = zipfile.ZipFile(io.BytesIO(
        download_bytes(page, bar.get_by_role("link", name="Structures (ZIP)"))))
    assert [n for n in archive.namelist() if n.endswith(".cif")] == [
        f"{i:03d}_{rid}.cif" for i, rid in enumerate(best, 1)]

