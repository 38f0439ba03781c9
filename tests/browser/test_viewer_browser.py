"""The viewer in a real browser (Debian's Chromium through Playwright) against gunicorn.

One gunicorn server over a database filled by ``flask --app app seed-demo --json``. Covers
the overview, every kind's table, pagination, a result page, a download, the gone page,
embedding by another origin, and JavaScript errors on every page. With
``UPDATE_SCREENSHOTS=1`` it also rewrites the README screenshots ``docs/overview-*.png``,
``docs/results-*.png`` and ``docs/structure-desktop.png`` (otherwise they go to a
temporary folder, so a test run leaves the work tree clean).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")


def public(site, suffix: str = "") -> str:
    """Return the URL of the public demo link on the live server, plus ``suffix``."""
    server, seed = site
    return f"{server.url}/share/{seed['share_links']['public']['id']}{suffix}"


def api_results(site, kind: str, **params) -> dict:
    """Ask the API (not the viewer) for a page of a demo pipeline's results."""
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    url = f"{server.url}/compute/v1/share/{link}/pipelines/{seed['pipelines'][kind]}/results"
    return httpx.get(url, params=params, timeout=10).json()


KIND_LABELS = {
    "protein_design": "Protein design",
    "protein_redesign": "Protein redesign",
    "protein_sequence_redesign": "Protein sequence redesign",
    "protein_library_screen": "Protein library screen",
    "small_molecule_design": "Small-molecule design",
    "small_molecule_library_screen": "Small-molecule library screen",
    "small_molecule_explore": "Small-molecule explore",
}
# The designed chain's computed properties and liability count (Biopython; issue 20).
PROTEIN = ["Molecular weight", "pI", "Net charge", "GRAVY", "Instability index",
           "Extinction coeff.", "Liabilities"]
# The results page's columns: the rank, the result's name, the key metrics (the kind's
# primary metric first), then the others in the CSV's order.
COLUMNS = {
    "protein_design": ["Rank", "Result", "Binding confidence", "ipTM",
                       "Min. interaction PAE", "Sequence", "Structure confidence",
                       "Helix", "Sheet", "Loop", "ipSAE (min)", *PROTEIN, "Warnings"],
    "protein_redesign": ["Rank", "Result", "Binding confidence", "ipTM",
                         "Min. interaction PAE", "Sequence", "Structure confidence",
                         "Helix", "Sheet", "Loop", "ipSAE (min)", *PROTEIN, "Warnings"],
    "protein_sequence_redesign": ["Rank", "Result", "Binding confidence", "ipTM",
                                  "Min. interaction PAE", "Variant", "Sequence",
                                  "Structure confidence", "Helix", "Sheet", "Loop",
                                  "ipSAE (min)", *PROTEIN, "Warnings"],
    "protein_library_screen": ["Rank", "Result", "Binding confidence", "ipTM",
                               "Min. interaction PAE", "External ID", "Sequence",
                               "Structure confidence", "Helix", "Sheet", "Loop",
                               "ipSAE (min)", *PROTEIN, "Warnings"],
    "small_molecule_design": ["Rank", "Result", "Optimization score",
                              "Binding confidence", "ipTM", "Structure", "pTM",
                              "Structure confidence", "Complex pLDDT", "Complex ipLDDT",
                              "Molecular weight", "cLogP", "TPSA", "QED", "Lipophilicity",
                              "Permeability", "Solubility", "Warnings"],
    "small_molecule_library_screen": ["Rank", "Result", "Binding confidence",
                                      "Optimization score", "ipTM", "External ID",
                                      "Structure", "pTM", "Structure confidence",
                                      "Complex pLDDT", "Complex ipLDDT",
                                      "Molecular weight", "cLogP", "TPSA", "QED",
                                      "Lipophilicity", "Permeability", "Solubility",
                                      "Warnings"],
    # Library-screen records without ADME (the SDK's explore results).
    "small_molecule_explore": ["Rank", "Result", "Binding confidence",
                               "Optimization score", "ipTM", "External ID", "Structure",
                               "pTM", "Structure confidence", "Complex pLDDT",
                               "Complex ipLDDT", "Molecular weight", "cLogP", "TPSA",
                               "QED", "Warnings"],
}


def test_overview_shows_all_seven_kinds_and_the_predictions(site, visitor):
    _server, seed = site
    visitor.goto(public(site))
    page = visitor.page
    assert page.locator("h1").inner_text() == "Shared results"
    cards = page.locator("#pipelines-heading + ul > li")
    assert cards.count() == len(KIND_LABELS) == 7
    kinds_shown = page.locator("#pipelines-heading + ul .card-kind").all_inner_texts()
    for label in KIND_LABELS.values():
        assert any(text.startswith(label) for text in kinds_shown), label
    for pipeline_id in seed["pipelines"].values():
        assert page.locator(f"a[href*='/pipelines/{pipeline_id}']").count() == 1
    assert page.locator("#predictions-heading + ul > li").count() == 2
    assert "Link expires in 13 days" in page.locator(".link-meta").inner_text()


@pytest.mark.parametrize("kind", list(COLUMNS))
def test_each_kind_has_its_table_columns(site, visitor, kind):
    _server, seed = site
    visitor.goto(public(site, f"/pipelines/{seed['pipelines'][kind]}"))
    headers = visitor.page.locator("table.results thead th").all_inner_texts()
    # A header's glossary link ("?") is not part of its label.
    labels = [h.split("\n")[0].strip().removesuffix("?").strip() for h in headers]
    assert labels == COLUMNS[kind]
    rows = visitor.page.locator("table.results tbody tr")
    assert rows.count() == min(100, len(api_results(site, kind, limit=1000)["data"]))


def row_ids(page) -> list[str]:
    """Return the full result ids of the table rows."""
    return [tr.get_attribute("data-result-id")
            for tr in page.locator("table.results tbody tr").all()]


@pytest.mark.parametrize("order", ["", "&sort=created_at"])
def test_pagination_forward_and_back_without_overlap(site, visitor, order):
    """The default (ranked) view and the as-run order page through every result once."""
    _server, seed = site
    page = visitor.page
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}"
                              f"?limit=100{order}"))
    pages = [row_ids(page)]
    while page.locator("a[rel=next]").count():
        page.locator("a[rel=next]").click()
        page.wait_for_load_state()
        pages.append(row_ids(page))
    everything = [record["id"] for record in
                  api_results(site, "protein_design", limit=1000)["data"]]
    flat = [rid for ids in pages for rid in ids]
    if order:  # as run: the API's order
        assert flat == everything  # each result once, in order: no overlap, no gap
    else:  # ranked: each result once, the best first
        assert sorted(flat) == sorted(everything) and len(flat) == len(everything)
        scores = {r["id"]: r["metrics"]["binding_confidence"] for r in
                  api_results(site, "protein_design", limit=1000)["data"]}
        assert [scores[i] for i in flat] == sorted(scores.values(), reverse=True)
    assert len(pages) == 3 and len(pages[0]) == 100
    for expected in reversed(pages[:-1]):
        page.locator("a[rel=prev]").click()
        page.wait_for_load_state()
        assert row_ids(page) == expected
    assert page.locator("a[rel=prev]").count() == 0


def test_result_page_shows_the_full_sequence(site, visitor):
    _server, seed = site
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}"))
    first = visitor.page.locator("table.results tbody tr").first.get_attribute("data-result-id")
    record = next(r for r in api_results(site, "protein_design", limit=1000)["data"]
                  if r["id"] == first)
    visitor.page.locator("table.results tbody th a").first.click()
    visitor.page.wait_for_load_state()
    assert first in visitor.page.url  # the row's result (its page names it by its label)
    shown = visitor.page.locator(".entity pre.seq").all_inner_texts()
    copies = [b.get_attribute("data-copy") for b in visitor.page.locator(".entity .copy-btn").all()]
    for entity in record["entities"]:
        assert entity["value"] in copies
        assert any("".join(text.split()) == entity["value"] for text in shown)


def test_download_bytes_equal_the_file_behind_the_presigned_url(site, visitor, tmp_path):
    _server, seed = site
    record = api_results(site, "small_molecule_design", limit=1)["data"][0]
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['small_molecule_design']}"
                              f"/results/{record['id']}"))
    for name in ("archive", "structure"):
        with visitor.page.expect_download() as info:
            visitor.page.locator(f"a[href$='/artifacts/{name}']").click()
        download = info.value
        target = tmp_path / download.suggested_filename
        download.save_as(target)
        direct = httpx.get(record["artifacts"][name]["url"], timeout=30)
        assert direct.status_code == 200
        assert target.read_bytes() == direct.content
        assert len(direct.content) > 0


def test_gone_link_page(site, browser):
    server, _seed = site
    v = Visitor(browser, allow=("status of 404",))
    v.goto(f"{server.url}/share/sl_{'n' * 32}", status=404)
    assert v.page.locator("h1").inner_text() == "This link is not available"
    assert "ask the person who sent you the link for a new one" in v.page.content()
    v.context.close()
    assert v.errors == []


@pytest.fixture
def other_origin(site):
    """A page on another loopback port that frames an embed page and a normal page."""
    target = public(site)
    body = (
        "<!doctype html><title>Partner</title><h1>Partner site</h1>"
        f'<iframe id="embed" src="{target}?embed=1" width="800" height="500"></iframe>'
        f'<iframe id="normal" src="{target}" width="800" height="500"></iframe>'
    ).encode()
    server, url = serve(body)  # "localhost": another origin than the viewer's 127.0.0.1
    yield url
    server.shutdown()
    server.server_close()


def test_embed_page_is_framed_by_another_origin_and_normal_page_refuses(browser, other_origin):
    v = Visitor(browser)
    v.goto(other_origin)
    v.page.wait_for_load_state("networkidle")
    embed = v.page.frame_locator("#embed")
    assert embed.locator("h1").inner_text() == "Shared results"
    assert embed.locator(".site-header").count() == 0  # no chrome in embed mode
    hrefs = [a.get_attribute("href") for a in embed.locator("a[href*='/pipelines/']").all()]
    assert hrefs and all("embed=1" in h for h in hrefs)
    # The normal page is not shown: the browser asked for it as a frame (Sec-Fetch-Dest),
    # so the viewer answers a notice that says to use ?embed=1 (app.viewer.web.embeds), not
    # the browser's grey box; nothing of the link is in it.
    normal = v.page.frame_locator("#normal")
    assert "cannot be shown inside another page" in normal.locator("h1").inner_text()
    assert "?embed=1" in normal.locator("main").inner_text()
    assert normal.locator(".card, a[href*='/pipelines/']").count() == 0
    frame_urls = [frame.url for frame in v.page.frames]
    assert "chrome-error://chromewebdata/" not in frame_urls
    v.context.close()
    assert v.errors == []


def test_sorting_a_column_orders_every_result(site, visitor):
    _server, seed = site
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}"))
    page = visitor.page
    # The page opens ranked by binding confidence (aria-sort says so); ipTM is one click.
    ranked = page.locator("table.results thead th", has_text="Binding confidence")
    assert ranked.get_attribute("aria-sort") == "descending"
    header = page.locator("table.results thead th", has_text="ipTM")
    index = page.locator("table.results thead th").all_inner_texts().index(
        header.inner_text())
    with page.expect_navigation():
        header.locator("a.sort-link").click()  # first click: best first, the whole set
    assert "sort=-iptm" in page.url
    header = page.locator("table.results thead th", has_text="ipTM")
    assert header.get_attribute("aria-sort") == "descending"
    assert "sorted by ipTM" in page.locator(".view-order").inner_text()
    values = [float(t) for t in page.locator(
        f"table.results tbody tr > :nth-child({index + 1})").all_inner_texts()]
    assert values == sorted(values, reverse=True) and len(values) == 100
    # The best of all 260, not of the first page.
    every = api_results(site, "protein_design", limit=1000)["data"]
    assert len(every) == 260
    assert values[0] == round(max(r["metrics"]["iptm"] for r in every), 3)


def test_structure_viewer_shows_the_molecule(site, visitor, shots_dir):
    _server, seed = site
    record = api_results(site, "protein_design", limit=1)["data"][0]
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}"
                              f"/results/{record['id']}"))
    visitor.page.locator("a", has_text="View 3D structure").click()
    visitor.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=60_000)
    assert visitor.page.get_attribute("#structure-viewer", "data-loaded") == "true"
    assert visitor.page.locator("#structure-viewer canvas").count() >= 1
    visitor.page.screenshot(path=str(shots_dir / "structure-desktop.png"))


def test_prediction_structure_renders_without_errors(site, visitor):
    _server, seed = site
    visitor.goto(public(site, f"/predictions/{seed['predictions']['structure_and_binding']}"))
    visitor.page.locator("a", has_text="View 3D structure").click()
    visitor.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=60_000)
    assert visitor.page.get_attribute("#structure-viewer", "data-loaded") == "true"
    assert visitor.page.locator("#structure-viewer canvas").count() >= 1
    # The visitor fixture fails the test on any JavaScript or console error.


def test_the_whole_pipeline_downloads_as_csv(site, visitor):
    _server, seed = site
    visitor.goto(public(site, f"/pipelines/{seed['pipelines']['protein_design']}?limit=25"))
    menu = visitor.page.locator(".export-menu")
    # 25 rows per page: the menu's files hold the first 25 of the view, and say so.
    assert "Download the first 25 as" in menu.inner_text()
    with visitor.page.expect_download() as info:
        menu.get_by_role("link", name="CSV", exact=True).click()
    first = Path(info.value.path()).read_text(encoding="utf-8").splitlines()
    assert len(first) == 1 + 25
    with visitor.page.expect_download() as info:
        menu.locator("a[data-export-all]").click()
    download = info.value
    assert download.failure() is None
    assert download.suggested_filename.startswith("Protein_design-")
    lines = Path(download.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("rank,label,result_id,sequence_length,chains,sequence,")
    assert len(lines) == 1 + 260
    assert lines[1:26] == first[1:]  # the same ranking, the first 25 of it


def test_no_javascript_errors_on_any_page(site, browser):
    _server, seed = site
    v = Visitor(browser)
    for kind, pipeline_id in seed["pipelines"].items():
        v.goto(public(site, f"/pipelines/{pipeline_id}"))
        first = api_results(site, kind, limit=1)["data"][0]["id"]
        v.goto(public(site, f"/pipelines/{pipeline_id}/results/{first}"))
        v.page.locator(".copy-btn").first.click()
    for prediction_id in seed["predictions"].values():
        v.goto(public(site, f"/predictions/{prediction_id}"))
    v.goto(public(site, "?embed=1"))
    v.context.close()
    assert v.errors == []


def test_screenshots_for_the_readme(site, browser, shots_dir):
    _server, seed = site
    shots = {
        "overview": public(site),
        "results": public(site, f"/pipelines/{seed['pipelines']['protein_design']}?limit=25"),
        # A sorted, filtered view of the whole set with its plots (docs/viewer.md).
        "explore": public(site, f"/pipelines/{seed['pipelines']['protein_design']}"
                                "?sort=-binding_confidence&iptm__gte=0.6&warnings=none&limit=10"),
        # Small molecules drawn by RDKit, the matched substructure highlighted.
        "molecules": public(site, f"/pipelines/{seed['pipelines']['small_molecule_design']}"
                                  "?smarts=c1ccc(Cl)cc1&sort=-qed&limit=10"),
    }
    for name, url in shots.items():
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            v = Visitor(browser, viewport=viewport)
            v.goto(url)
            if name == "explore":  # the plots, one click away, drawn once explore.json answers
                v.page.locator("#plots-panel > summary").click()
                v.page.wait_for_selector("#explore [data-explore-histograms] svg")
            if name == "molecules":  # lazy images below the fold: load them all for the shot
                # Functions, not expressions: the page's CSP refuses eval of a string.
                v.page.evaluate("() => document.querySelectorAll('img').forEach("
                                "i => { i.loading = 'eager'; })")
                v.page.wait_for_function("() => Array.from(document.images).every("
                                         "i => i.complete && i.naturalWidth > 0)")
            path = shots_dir / f"{name}-{label}.png"
            v.page.screenshot(path=str(path), full_page=True)
            assert path.stat().st_size > 10_000
            # The page never scrolls sideways as a whole; only the table does.
            assert v.page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            v.context.close()
            assert v.errors == []
