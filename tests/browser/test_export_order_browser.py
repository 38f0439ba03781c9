"""Picks keep their order, in Chromium over the seeded demo: tick five results in an order
of one's own (not the page's), move one by keyboard, and the shortlist's FASTA and
structures ZIP hold them in that order, each with its place in the list; at desktop and
phone sizes. Screenshots: /tmp/shots/exports. (The server's rule, ids= without a sort in
the order of the list: tests/viewer/exports/test_export_order.py.)"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor, download_bytes

pytestmark = [pytest.mark.browser]
SHOTS = Path("/tmp/shots/exports")
KIND = "protein_design"


def _view(server, seed) -> str:
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][KIND]}")


def _fasta_names(text: str) -> list[list[str]]:
    return [line[1:].split(" ")[0].split("|") for line in text.splitlines()
            if line.startswith(">")]


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_picks_keep_their_order_and_move_by_keyboard(site, browser, shots_dir, size,
                                                      viewport):
    server, seed = site
    visitor = Visitor(browser, viewport)
    page = visitor.page
    visitor.goto(_view(server, seed) + "?limit=25")  # ranked: best first
    rows = page.locator("#results-table tbody tr[data-result-id]")
    shown = [(tr.get_attribute("data-result-id"), tr.get_attribute("data-label"))
             for tr in rows.all()[:10]]
    # Ticked in an order of one's own, as in the issue (BSCA, WGK2, 0XAP, QPZ9, EAY0).
    picked = [shown[i] for i in (4, 1, 8, 2, 6)]
    for rid, _label in picked:
        page.get_by_role("checkbox", name=f"Add {rid} to the shortlist").check()
    bar = page.locator("#shortlist")
    assert bar.locator("h2").inner_text() == "5 in shortlist"
    assert "In the order you picked; exports follow it" in bar.inner_text()
    entries = bar.locator("[data-shortlist-entry] .shortlist-label")
    assert entries.all_inner_texts() == [label for _rid, label in picked]
    # By keyboard: focus the fourth pick's "up" button, Enter; focus stays on the moved one.
    fourth = picked[3][1]
    page.get_by_role("button", name=f"Move {fourth} up").focus()
    page.keyboard.press("Enter")
    wanted = [picked[0], picked[1], picked[3], picked[2], picked[4]]
    assert entries.all_inner_texts() == [label for _rid, label in wanted]
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        f"Move {fourth} up"
    page.keyboard.press("Enter")  # and once more, then Tab to reach the next control
    wanted = [picked[0], picked[3], picked[1], picked[2], picked[4]]
    assert entries.all_inner_texts() == [label for _rid, label in wanted]
    ids = [rid for rid, _label in wanted]
    SHOTS.mkdir(parents=True, exist_ok=True)
    bar.scroll_into_view_if_needed()
    for folder in (shots_dir, SHOTS):
        page.screenshot(path=str(folder / f"shortlist-order-{size}.png"))

    fasta = download_bytes(page, bar.get_by_role("link", name="FASTA")).decode()
    names = _fasta_names(fasta)
    assert [n[2] for n in names] == ids
    assert [n[0] for n in names] == ["1", "2", "3", "4", "5"]  # the place in the list
    archive = zipfile.ZipFile(io.BytesIO(
        download_bytes(page, bar.get_by_role("link", name="Structures (ZIP)"))))
    assert [n for n in archive.namelist() if n.endswith(".cif")] == [
        f"{i:03d}_{rid}.cif" for i, rid in enumerate(ids, 1)]
    # The shortlist's view shows them in that order, and says so.
    with page.expect_navigation():
        bar.get_by_role("link", name="Open as view").click()
    assert [tr.get_attribute("data-result-id") for tr in rows.all()] == ids
    assert "in the order of the list" in page.locator(".view-order").inner_text()
    visitor.close()
    assert visitor.errors == []
