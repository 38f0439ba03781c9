"""The recipient's first minute, end to end in Chromium (issue 19, "What it must show").

Tasks a collaborator opens a link for, done with the shortlist (JavaScript), each checked
against a recomputation from the API's own records:

1. the top 10 binders without warnings and with ipTM >= 0.6, exported as FASTA and as a
   structures ZIP, best first;
3. the top two designs compared in 3D with their metrics side by side.

Task 2 (the carboxylic acids of a screen that pass Lipinski, as SDF) needs only links and
server HTML: tests/viewer/results/test_views.py.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.browser.conftest import api_records, download_bytes

pytestmark = [pytest.mark.browser]


def _pipeline_url(server, seed, kind: str) -> str:
    return (f"{server.url}/share/{seed['share_links']['public']['id']}/pipelines/"
            f"{seed['pipelines'][kind]}")


def _ranked(records: list[dict], key: str = "binding_confidence") -> list[dict]:
    """Best first by ``key`` (missing last), ties by id: the table's default order."""
    return sorted(records, key=lambda r: (r["metrics"].get(key) is None,
                                          -(r["metrics"].get(key) or 0.0), r["id"]))


def test_top_10_clean_binders_with_iptm_06_as_fasta_and_zip_best_first(site, visitor):
    server, seed = site
    expected = [r["id"] for r in _ranked(api_records(server, seed, "protein_design"))
                if not r.get("warnings") and r["metrics"]["iptm"] >= 0.6][:10]
    assert len(expected) == 10
    page = visitor.page
    visitor.goto(_pipeline_url(server, seed, "protein_design"))
    # The page opens ranked by binding confidence: filter, nothing else.
    page.locator("summary", has_text="Filter and search every result").click()
    page.select_option("#f-warnings", "none")
    page.get_by_label("ipTM at least").fill("0.6")
    with page.expect_navigation():
        page.get_by_role("button", name="Apply filters").click()
    rows = page.locator("#results-table tbody tr[data-result-id]")
    shown = [row.get_attribute("data-result-id") for row in rows.all()[:10]]
    assert shown == expected
    ranks = page.locator("#results-table tbody tr[data-result-id] td.col-rank"
                         ).all_inner_texts()
    assert [text.strip() for text in ranks[:10]] == [str(i) for i in range(1, 11)]
    for result_id in shown:
        page.get_by_role("checkbox", name=f"Add {result_id} to the shortlist").check()
    bar = page.locator("#shortlist")
    fasta = download_bytes(page, bar.get_by_role("link", name="FASTA")).decode()
    headers = [line[1:].split(" ")[0].split("|") for line in fasta.splitlines()
               if line.startswith(">")]
    assert [h[2] for h in headers] == expected
    assert [h[0] for h in headers] == [str(i) for i in range(1, 11)]
    archive = zipfile.ZipFile(io.BytesIO(
        download_bytes(page, bar.get_by_role("link", name="Structures (ZIP)"))))
    structures = [n for n in archive.namelist() if n.endswith(".cif")]
    assert structures == [f"{i:03d}_{rid}.cif" for i, rid in enumerate(expected, 1)]


def test_the_top_two_compared_in_3d_with_metrics_side_by_side(site, visitor):
    server, seed = site
    best = _ranked(api_records(server, seed, "protein_design"))[:2]
    page = visitor.page
    visitor.goto(_pipeline_url(server, seed, "protein_design"))
    for record in best:
        page.get_by_role("checkbox", name=f"Add {record['id']} to the shortlist").check()
    bar = page.locator("#shortlist")
    with page.expect_navigation():
        bar.get_by_role("link", name="Compare in 3D").click()
    table = page.locator("table", has_text="Binding confidence").first
    row = table.locator("tr", has_text="Binding confidence")
    cells = row.locator("td").all_inner_texts()
    values = [f"{r['metrics']['binding_confidence']:.3f}" for r in best]
    assert [c.split()[0] for c in cells[:2]] == values
    # The better of the two is marked, and it is the run's #1.
    if values[0] != values[1]:
        assert "better" in cells[0] and "better" not in cells[1]
    page.locator("canvas").first.wait_for(state="visible", timeout=60_000)
