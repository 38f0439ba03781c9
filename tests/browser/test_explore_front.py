"""The results page's browser side of issue 8: plots, the shortlist, the index progress.

Unit-level: Debian's Chromium against a test-local server (``explore_fixture.py``) that
renders the real partials into the lead's page contract and serves the real static files
and a controlled ``explore.json``, under the viewer's own Content-Security-Policy.
End to end (``test_live_*``): the real results page on gunicorn over the seeded demo
(the scatter has one point per matching result; the shortlist survives paging and reload
and its exports hold exactly its rows). Any console error (a refused inline style or
script included) fails the test.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor, api_records, seeded_site_env
from tests.browser.explore_fixture import (
    PIPELINE,
    VIEW,
    FixtureSite,
    ready_payload,
    result_ids,
    serve,
)
from tests.support.servers import start_gunicorn, stop_gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
KEY = f"share-viewer:shortlist:{PIPELINE}"


@pytest.fixture
def site():
    """A fresh fixture server (30 results, 10 a page, protein kind)."""
    fixture = FixtureSite()
    server = serve(fixture)
    yield fixture
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def desktop_visitor(browser):
    """The module's plain desktop visitor, reused from test to test (closed after it)."""
    v = Visitor(browser, DESKTOP)
    yield v
    v.close()


@pytest.fixture
def visitors(browser, desktop_visitor):
    """Make visitors (desktop by default); each must end without a console error.

    A plain desktop visitor (no viewport, no options, ``fresh`` false) is the module's,
    reused: each test loads its own page into it, its error list emptied first. A new
    browser page costs about a second of CPU, most of a short test's cost; the fixture
    pages of a test are another origin than the last test's (a server on a new port), so
    no storage carries over. Pages of one origin across tests (the live site's: the tab
    keeps the plots panel open in its sessionStorage) need ``fresh=True``, as does any
    visitor with options; such a visitor is the test's own, closed after it.
    """
    made: list[Visitor] = []
    shared: list[Visitor] = []

    def make(viewport=None, fresh: bool = False, **options) -> Visitor:
        if viewport is None and not options and not fresh:
            desktop_visitor.errors.clear()
            shared.append(desktop_visitor)
            return desktop_visitor
        made.append(Visitor(browser, viewport or DESKTOP, **options))
        return made[-1]

    yield make
    for v in made:
        v.close()
        assert v.errors == []
    for v in shared:
        errors, v.errors = list(v.errors), []
        assert errors == []


def open_page(v: Visitor, site: FixtureSite, query: str = "") -> None:
    v.goto(site.url + VIEW + query)
    v.page.wait_for_selector("[data-explore-scatter] svg")


def stored(v: Visitor) -> list[str] | None:
    raw = v.page.evaluate(f"localStorage.getItem({json.dumps(KEY)})")
    return None if raw is None else json.loads(raw)


def tick(v: Visitor, rid: str):
    box = v.page.get_by_role("checkbox", name=f"Add {rid} to the shortlist")
    box.check()
    return box


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_plots_draw_under_the_strict_csp(site, visitors, viewport):
    v = visitors(viewport)
    open_page(v, site)
    page = v.page
    # One figure per metric; the empty one says so instead of drawing.
    figures = page.locator(".histograms figure.histogram")
    assert figures.count() == 3
    assert figures.nth(0).locator("svg[role=img]").get_attribute("aria-label").startswith(
        "Histogram of ipTM: 30 results from 0 to 1 in 10 bins")
    assert "2 without a value" in figures.nth(1).inner_text()
    assert "No values." in figures.nth(2).inner_text()
    # The scatter: one link per point, the count in words.
    points = page.locator("[data-explore-scatter] svg a.point")
    assert points.count() == 30
    assert page.locator("[data-explore-count]").inner_text() == "30 points."
    assert page.locator("[data-explore-scatter-title]").inner_text() == (
        "Binding confidence against ipTM")
    assert points.first.get_attribute("href") == f"{VIEW}/results/res_0000"
    assert "res_0000, ipTM 0, Binding confidence 0" in points.first.get_attribute("aria-label")
    # Plot's <style> never reaches the page (the CSP would refuse it: a console error).
    assert page.locator("main style").count() == 0
    # Nothing wider than the window (390 px phones included).
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for svg in page.locator(".explore svg").all():
        assert svg.bounding_box()["width"] <= viewport["width"]


def test_a_point_opens_its_result_and_embed_is_kept(site, visitors):
    v = visitors()
    open_page(v, site, "?embed=1")
    point = v.page.locator("[data-explore-scatter] a.point[data-id=res_0003]")
    assert point.get_attribute("href") == f"{VIEW}/results/res_0003?embed=1"
    point.locator("circle").click()
    v.page.wait_for_url(re.compile(r"/results/res_0003\?embed=1$"))
    assert v.page.locator("h1").inner_text() == "Result res_0003"


def test_truncated_scatter_says_how_many_it_shows(site, visitors):
    payload = ready_payload(site.ids, truncated=True)
    payload["matched"] = 12345
    site.payload = payload
    v = visitors()
    open_page(v, site)
    assert v.page.locator("[data-explore-count]").inner_text() == (
        "30 points shown of 12\u2009345 matching results (the scatter holds at most"
        " 5\u2009000).")


def test_other_axes_from_the_form_keep_the_query(site, visitors):
    site.payload = ready_payload(site.ids, x="min_interaction_pae", y="iptm")
    v = visitors()
    open_page(v, site, "?iptm__gte=0.5&sort=-iptm&embed=1")
    form = v.page.locator("form.axis-form")
    hidden = {i.get_attribute("name"): i.get_attribute("value")
              for i in form.locator("input[type=hidden]").all()}
    assert hidden == {"iptm__gte": "0.5", "sort": "-iptm", "embed": "1"}
    v.page.select_option("#explore-x", "min_interaction_pae")
    v.page.select_option("#explore-y", "iptm")
    form.get_by_role("button", name="Plot these").click()
    v.page.wait_for_url(re.compile(r"x=min_interaction_pae"))
    assert "iptm__gte=0.5" in v.page.url and "embed=1" in v.page.url
    v.page.wait_for_selector("[data-explore-scatter] svg")
    assert v.page.locator("[data-explore-scatter-title]").inner_text() == (
        "ipTM against Min. interaction PAE")


def test_shortlist_survives_paging_and_reload_and_builds_its_links(site, visitors):
    v = visitors()
    open_page(v, site)
    bar = v.page.locator("#shortlist")
    assert bar.is_hidden()
    tick(v, "res_0001")
    tick(v, "res_0004")
    assert bar.is_visible()
    assert bar.locator("h2").inner_text() == "2 in shortlist"
    assert stored(v) == ["res_0001", "res_0004"]
    assert v.page.locator("tr[data-result-id=res_0001]").get_attribute("class") == "shortlisted"
    # The next page: its own rows, the same shortlist.
    v.page.get_by_role("link", name="Next page").click()
    v.page.wait_for_selector("tr[data-result-id=res_0010] input.shortlist-tick")
    assert bar.locator("h2").inner_text() == "2 in shortlist"
    tick(v, "res_0012")
    v.page.reload()
    v.page.wait_for_selector("[data-explore-scatter] svg")
    assert bar.locator("h2").inner_text() == "3 in shortlist"
    assert v.page.get_by_role("checkbox", name="Add res_0012 to the shortlist").is_checked()
    assert not v.page.get_by_role("checkbox", name="Add res_0011 to the shortlist").is_checked()
    ids = "res_0001,res_0004,res_0012"
    assert bar.get_by_role("link", name="Open as view").get_attribute("href") == (
        f"{VIEW}?ids={ids}")
    exports = {a.inner_text(): a.get_attribute("href")
               for a in bar.locator("[data-shortlist-export]").all()}
    assert exports == {"CSV": f"{VIEW}/export.csv?ids={ids}",
                       "JSON": f"{VIEW}/export.json?ids={ids}",
                       "FASTA": f"{VIEW}/export.fasta?ids={ids}",
                       "Structures (ZIP)": f"{VIEW}/export.zip?ids={ids}"}
    # Shortlisted points are marked on the scatter (also in their names).
    picked = v.page.locator("[data-explore-scatter] a.point.picked")
    assert sorted(p.get_attribute("data-id") for p in picked.all()) == ids.split(",")
    assert picked.first.get_attribute("aria-label").endswith("(in the shortlist)")
    # Unticking takes it out everywhere.
    v.page.get_by_role("checkbox", name="Add res_0012 to the shortlist").uncheck()
    assert stored(v) == ["res_0001", "res_0004"]
    assert picked.count() == 2


def test_small_molecule_kinds_export_sdf_and_embed_is_kept(site, visitors):
    site.family = "small_molecule"
    v = visitors()
    open_page(v, site, "?embed=1")
    tick(v, "res_0002")
    bar = v.page.locator("#shortlist")
    exports = [a.get_attribute("href") for a in bar.locator("[data-shortlist-export]").all()]
    assert exports == [f"{VIEW}/export.{f}?ids=res_0002&embed=1"
                       for f in ("csv", "json", "sdf", "zip")]
    assert bar.get_by_role("link", name="Open as view").get_attribute("href") == (
        f"{VIEW}?ids=res_0002&embed=1")


def test_pick_points_toggles_the_shortlist(site, visitors):
    v = visitors()
    open_page(v, site)
    toggle = v.page.get_by_role("button", name="Pick points")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    point = v.page.locator("[data-explore-scatter] a.point[data-id=res_0007]")
    point.locator("circle").click()
    assert stored(v) == ["res_0007"]
    assert v.page.url.endswith(VIEW)  # picked, not followed
    assert "picked" in point.get_attribute("class")
    assert v.page.get_by_role("checkbox", name="Add res_0007 to the shortlist").is_checked()
    assert point.get_attribute("aria-label").startswith("Remove from the shortlist: res_0007")
    # Keyboard: the point is a Tab stop (30 points); Enter toggles it while picking.
    point.focus()
    v.page.keyboard.press("Enter")
    assert stored(v) is None
    assert v.page.locator("#shortlist").is_hidden()


def test_the_shortlist_stops_at_200(site, visitors):
    v = visitors()
    open_page(v, site)
    full = [f"res_9{i:03d}" for i in range(200)]
    v.page.evaluate("([key, ids]) => localStorage.setItem(key, JSON.stringify(ids))", [KEY, full])
    v.page.reload()
    v.page.wait_for_selector("[data-explore-scatter] svg")
    bar = v.page.locator("#shortlist")
    assert bar.locator("h2").inner_text() == "200 in shortlist (full)"
    box = v.page.get_by_role("checkbox", name="Add res_0001 to the shortlist")
    box.click()
    assert not box.is_checked()
    assert "The shortlist is full: it holds at most 200 results" in bar.inner_text()
    assert stored(v) == full


def test_clear_and_copy_link(site, visitors):
    v = visitors(permissions=["clipboard-read", "clipboard-write"])
    open_page(v, site)
    tick(v, "res_0001")
    tick(v, "res_0002")
    bar = v.page.locator("#shortlist")
    bar.get_by_role("button", name="Copy link").click()
    v.page.wait_for_function("() => document.querySelector('[data-shortlist-status]')"
                             ".textContent.startsWith('Link copied')")
    copied = v.page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{site.url}{VIEW}?ids=res_0001,res_0002"
    bar.get_by_role("button", name="Clear").click()
    assert bar.is_hidden()
    assert stored(v) is None
    assert not v.page.get_by_role("checkbox", name="Add res_0001 to the shortlist").is_checked()


def test_another_tab_sees_the_same_shortlist(site, visitors):
    v = visitors(fresh=True)
    open_page(v, site)
    other = v.context.new_page()
    other.goto(site.url + VIEW)
    other.wait_for_selector("[data-explore-scatter] svg")
    tick(v, "res_0005")
    other.wait_for_function("() => document.querySelector('#shortlist h2').textContent"
                            " === '1 in shortlist'")
    assert other.get_by_role("checkbox", name="Add res_0005 to the shortlist").is_checked()


def test_progress_is_polled_and_the_page_reloads_when_ready(site, visitors):
    site.building_polls = 5  # "building" for the page and four answers, then ready
    v = visitors()
    v.goto(site.url + VIEW)
    page = v.page
    first = int(page.locator("#index-progress").get_attribute("value"))
    page.wait_for_function(
        f"() => document.getElementById('index-progress').value > {first}")
    value = int(page.locator("#index-progress").get_attribute("value"))
    assert page.locator("#index-progress-text").inner_text() == (
        f"Indexing {value:,} of 100,000 results".replace(",", "\u2009"))
    # Ready: the page reloads itself and draws the plots.
    page.wait_for_selector("[data-explore-scatter] svg", timeout=15000)
    assert page.locator("#index-progress").count() == 0
    assert page.locator("[data-explore-count]").inner_text() == "30 points."


def _thin(number: int) -> str:
    """``number`` as the page writes it: thousands apart by a thin space."""
    return f"{number:,}".replace(",", "\u2009")


def test_a_substructure_count_is_polled_and_the_page_reloads_when_ready(site, visitors):
    """A broad substructure query counted in the background (issue 21): explore.json
    answers "counting"; the bar shows the candidate molecules checked, then the page
    reloads with the whole answer."""
    site.counting_polls = 5  # "counting" for the page and four answers, then ready
    v = visitors()
    v.goto(site.url + VIEW)
    page = v.page
    assert page.locator("#index-progress").get_attribute("max") == "950000"
    first = int(page.locator("#index-progress").get_attribute("value"))
    page.wait_for_function(
        f"() => document.getElementById('index-progress').value > {first}")
    value = int(page.locator("#index-progress").get_attribute("value"))
    assert page.locator("#index-progress-text").inner_text() == (
        f"Counting the whole set: {_thin(value)} of {_thin(950_000)} candidate molecules "
        f"checked, {_thin(value * 9 // 10)} of them holding the substructure so far")
    page.wait_for_selector("[data-explore-scatter] svg", timeout=15000)
    assert page.locator("#index-progress").count() == 0


def test_without_javascript_the_axis_form_works_and_no_shortlist_shows(site, visitors):
    v = visitors(java_script_enabled=False)
    v.goto(site.url + VIEW + "?q=abc")
    assert v.page.locator("#shortlist").is_hidden()
    assert v.page.locator("input.shortlist-tick").count() == 0
    v.page.select_option("#explore-y", "min_interaction_pae")
    v.page.get_by_role("button", name="Plot these").click()
    v.page.wait_for_url(re.compile(r"y=min_interaction_pae"))
    assert "q=abc" in v.page.url


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_axe_finds_no_violation_on_plots_and_shortlist(site, visitors, viewport):
    v = visitors(viewport, bypass_csp=True)  # axe is injected as an inline script
    open_page(v, site)
    tick(v, "res_0001")
    v.page.add_script_tag(path=str(AXE))
    result = v.page.evaluate(
        """async () => {
            const r = await axe.run({include: [["#explore"], ["#shortlist"], ["#results-table"]]},
                {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                                 "best-practice"]}});
            return r.violations.map((x) => x.id + ": " + x.nodes.map((n) => n.target).join(" | "));
        }""")
    assert result == []


def test_keyboard_reaches_the_controls(site, visitors):
    v = visitors()
    open_page(v, site)
    page = v.page
    seen = []
    for _ in range(80):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(
            "(() => { const e = document.activeElement;"
            " return (e.getAttribute('aria-label') || e.id || e.textContent || '').trim(); })()"))
    assert "explore-x" in seen and "explore-y" in seen
    assert "Pick points" in seen
    assert "Add res_0000 to the shortlist" in seen
    page.get_by_role("checkbox", name="Add res_0000 to the shortlist").focus()
    page.keyboard.press("Space")
    assert stored(v) == ["res_0000"]


def test_many_points_are_not_tab_stops(site, visitors):
    site.ids = result_ids(150)
    site.payload = ready_payload(site.ids)
    v = visitors()
    open_page(v, site)
    points = v.page.locator("[data-explore-scatter] a.point")
    assert points.count() == 150
    assert v.page.locator("[data-explore-scatter] a.point:not([tabindex='-1'])").count() == 0


# ------------------------------------------------------------------ end to end (gunicorn)


@pytest.fixture(scope="module")
def live_site(shared_sites):
    """Gunicorn over a seeded demo database; yields (server, seed summary).

    The server the plain ``site`` fixture of tests/browser/conftest.py hands out (this
    module's ``site`` is the fixture page's): these tests only read.
    """
    yield shared_sites.get()
    shared_sites.release()


def live_url(live_site, kind: str, query: str = "") -> str:
    server, seed = live_site
    link = seed["share_links"]["public"]["id"]
    return f"{server.url}/share/{link}/pipelines/{seed['pipelines'][kind]}{query}"


def open_live(v: Visitor, url: str) -> None:
    """Open a results page and its plots (one click away); while the index builds the
    page refreshes itself until the table and its plots panel show."""
    v.page.goto(url)
    v.page.wait_for_selector("#plots-panel > summary", timeout=90_000).click()
    v.page.wait_for_selector("[data-explore-scatter] svg", timeout=90_000)


def explore_json(v: Visitor) -> dict:
    """GET the page's own explore.json (the URL the plots were drawn from)."""
    url = v.page.locator("#explore").get_attribute("data-explore-url")
    response = v.page.request.get(urljoin(v.page.url, url))
    assert response.status == 200
    return response.json()


@pytest.mark.parametrize("query", ["", "?iptm__gte=0.8&sort=-iptm", "?warnings=any"])
def test_live_scatter_has_one_point_per_matching_result(live_site, visitors, query):
    v = visitors(fresh=True)
    open_live(v, live_url(live_site, "protein_design", query))
    body = explore_json(v)
    assert body["state"] == "ready" and not body["points"]["truncated"]
    matched = body["matched"]
    assert matched > 0
    assert v.page.locator("[data-explore-scatter] svg a.point").count() == matched
    noun = "point" if matched == 1 else "points"
    assert v.page.locator("[data-explore-count]").inner_text() == (
        f"{matched:,} {noun}.".replace(",", "\u2009"))
    assert v.page.locator(".histograms figure.histogram").count() == len(body["histograms"])
    if query:
        shown = v.page.locator("#match-count").inner_text()
        assert matched == int(re.sub(r"\D", "", shown))


def test_live_shortlist_survives_paging_and_reload_and_exports_its_rows(live_site, visitors):
    server, _seed = live_site
    v = visitors(fresh=True)
    open_live(v, live_url(live_site, "protein_design", "?limit=10&sort=-iptm"))
    page = v.page
    first = page.locator("tr[data-result-id]").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-result-id'))")
    assert len(first) == 10
    for rid in first[:2]:
        tick(v, rid)
    page.locator("a[rel=next]").first.click()
    page.wait_for_selector(
        f"tr[data-result-id]:not([data-result-id='{first[0]}']) input.shortlist-tick")
    page.wait_for_selector("[data-explore-scatter] svg")
    second = page.locator("tr[data-result-id]").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-result-id'))")
    assert not set(second) & set(first)
    assert page.locator("#shortlist h2").inner_text() == "2 in shortlist"
    tick(v, second[3])
    page.reload()
    page.wait_for_selector("[data-explore-scatter] svg")
    chosen = [*first[:2], second[3]]
    assert page.locator("#shortlist h2").inner_text() == "3 in shortlist"
    assert page.get_by_role("checkbox", name=f"Add {second[3]} to the shortlist").is_checked()
    assert page.locator("[data-explore-scatter] a.point.picked").count() == 3
    # The CSV export of the shortlist holds exactly its rows.
    href = page.locator("#shortlist [data-shortlist-export=csv]").get_attribute("href")
    exported = httpx.get(server.url + href, timeout=30)
    assert exported.status_code == 200
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert sorted(r["result_id"] for r in rows) == sorted(chosen)
    href = page.locator("#shortlist [data-shortlist-export=json]").get_attribute("href")
    assert httpx.get(server.url + href, timeout=30).status_code == 200
    # "Open as view": the table shows exactly the shortlist.
    page.locator("#shortlist").get_by_role("link", name="Open as view").click()
    page.wait_for_url(re.compile(r"ids="))
    shown = page.locator("tr[data-result-id]").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-result-id'))")
    assert sorted(shown) == sorted(chosen)


@pytest.mark.parametrize("kind", ["small_molecule_library_screen", "protein_design"])
def test_live_page_at_phone_width(live_site, visitors, kind):
    v = visitors(PHONE)
    open_live(v, live_url(live_site, kind, "?embed=1"))
    page = v.page
    rid = page.locator("tr[data-result-id]").first.get_attribute("data-result-id")
    tick(v, rid)
    # The plots and the shortlist bar fit the phone's width (the table scrolls in its box).
    too_wide = page.evaluate(
        """(width) => Array.from(document.querySelectorAll(
            "#explore, #explore *, #shortlist, #shortlist *"))
            .filter((e) => e.getBoundingClientRect().right > width + 0.5)
            .map((e) => e.tagName + "." + e.getAttribute("class"))""", PHONE["width"])
    assert too_wide == []
    fmt = "sdf" if kind.startswith("small") else "fasta"
    export = page.locator(f"#shortlist [data-shortlist-export={fmt}]").get_attribute("href")
    assert export.endswith(f"/export.{fmt}?ids={rid}&embed=1")
    point = page.locator(f"[data-explore-scatter] a.point[data-id='{rid}']")
    assert point.get_attribute("href").endswith(f"/results/{rid}?embed=1")


@pytest.fixture(scope="module")
def building_site(tmp_path_factory):
    """Gunicorn over a copy of the demo whose index builds in the background.

    A server of its own (the shared one may have built its indexes already), with
    ``EXPLORE_SYNC_LIMIT`` below the demo's 260 designs: the first results page starts
    the build in a background thread and answers while it runs.
    """
    tmp = tmp_path_factory.mktemp("explore-building")
    env, seed = seeded_site_env(tmp)
    server = start_gunicorn({**env, "FLASK_EXPLORE_SYNC_LIMIT": "10"}, tmp)
    yield server, seed
    stop_gunicorn(server)


def test_live_building_page_polls_and_shows_the_plots_when_ready(building_site, visitors):
    v = visitors(fresh=True)
    polled: list[str] = []
    v.page.on("request", lambda r: polled.append(r.url) if "/explore.json" in r.url else None)
    v.goto(live_url(building_site, "protein_design", "?sort=-iptm"))
    if v.page.locator("#index-progress").count() == 0:
        pytest.skip("the index was ready at the first request")
    assert v.page.locator("script[src*='js/index_progress.js']").count() == 1
    designs = len(api_records(building_site[0], building_site[1], "protein_design"))
    assert int(v.page.locator("#index-progress").get_attribute("max")) == designs
    # Reloaded when ready: the table, its plots one click away.
    v.page.wait_for_selector("#plots-panel > summary", timeout=120_000).click()
    v.page.wait_for_selector("[data-explore-scatter] svg", timeout=120_000)
    assert polled  # index_progress.js asked for the progress
    body = explore_json(v)
    assert v.page.locator("[data-explore-scatter] svg a.point").count() == body["matched"]
