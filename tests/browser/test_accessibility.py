"""Accessibility of the viewer's pages in a real browser: axe-core, keyboard, phone width.

The shared gunicorn server over a database filled by ``flask --app app seed-demo --json``
(``site`` of ``conftest.py``), plus a second gunicorn on the same database whose compute
API URL points at a closed port, to show the 502 page. Every page type is loaded at desktop
(1280 px) and phone (390 px) width and audited with axe-core (vendored, a test tool only:
``tests/browser/vendor/axe-core/``) against the WCAG 2.1 A/AA rules and axe's best
practices; violations of impact ``serious`` or ``critical`` fail the test. All findings,
lesser ones included, are written to a JSON-lines report when ``AXE_REPORT=<path>`` is set.

Keyboard: Tab from the top reaches the skip link first and Enter moves focus to ``<main>``;
the results table's sort buttons and the pagination links are reached with Tab and work
with Enter; every focus stop shows an outline. Phone: the page never scrolls sideways as
a whole, and a wide table scrolls inside its own container.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, Visitor
from tests.support.servers import free_port, start_gunicorn, stop_gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
# WCAG 2.1 A/AA, plus axe's best practices (landmarks, headings): a serious or critical
# finding of either fails; moderate and minor ones are only reported (AXE_REPORT).
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = {"serious", "critical"}
WIDTHS = {"desktop": DESKTOP, "phone": PHONE}
KINDS = ["protein_design", "protein_redesign", "protein_sequence_redesign",
         "protein_library_screen", "small_molecule_design", "small_molecule_library_screen"]
# Pages that answer an error status on purpose; Chromium logs each as a failed load.
EXPECTED_STATUS = {"not-found": 404, "error-400": 400, "error-502": 502}


@pytest.fixture(scope="module")
def site(shared_sites, tmp_path_factory):
    """The shared gunicorn over the seeded demo; yields (server, seed summary, broken server).

    The broken server is a twin on the same database (``conftest.SharedSite``) that
    reaches the compute API at a port nobody listens on, so every share page answers the
    502 "service not answering" page.
    """
    server, seed = shared_sites.get()
    tmp = tmp_path_factory.mktemp("a11y-broken")
    env = {key: server.env[key] for key in (
        "FLASK_DATABASE_URL", "FLASK_INSTANCE_PATH", "FLASK_ARTIFACT_DIR", "FLASK_SECRET_KEY",
        "FLASK_EPITOPE_SCAN")}
    broken = start_gunicorn({**env, "FLASK_COMPUTE_API_URL": f"http://127.0.0.1:{free_port()}",
                             "FLASK_COMPUTE_API_TIMEOUT": "2"}, tmp, workers=1)
    yield server, seed, broken
    stop_gunicorn(broken)
    shared_sites.release()


def first_result(site, kind: str, index: int = 0) -> str:
    """Ask the API (not the viewer) for the id of a demo pipeline's first (or later) result."""
    server, seed, _broken = site
    link = seed["share_links"]["public"]["id"]
    url = f"{server.url}/compute/v1/share/{link}/pipelines/{seed['pipelines'][kind]}/results"
    return httpx.get(url, params={"limit": index + 1},
                     timeout=10).json()["data"][index]["id"]


def page_urls(site) -> dict[str, str]:
    """Return every page type to audit, by name."""
    server, seed, broken = site
    public = f"/share/{seed['share_links']['public']['id']}"
    pipelines = seed["pipelines"]
    urls = {"overview": f"{server.url}{public}"}
    for kind in KINDS:
        # 25 rows: the same row template as 100, a quarter of the audit time.
        urls[f"results-{kind}"] = f"{server.url}{public}/pipelines/{pipelines[kind]}?limit=25"
    for name, kind in (("result-protein", "protein_design"),
                       ("result-small-molecule", "small_molecule_design")):
        urls[name] = (f"{server.url}{public}/pipelines/{pipelines[kind]}"
                      f"/results/{first_result(site, kind)}")
    # An index view with highlighted depictions and the substructure field filled in.
    urls["results-substructure"] = (f"{server.url}{public}/pipelines/"
                                    f"{pipelines['small_molecule_library_screen']}"
                                    "?smarts=c1ccc(Cl)cc1&limit=25")
    prediction = seed["predictions"]["structure_and_binding"]
    urls["prediction"] = f"{server.url}{public}/predictions/{prediction}"
    # The ADME table: depictions, sort links in headers, copy buttons, sorted by one.
    urls["prediction-adme"] = (f"{server.url}{public}/predictions/"
                               f"{seed['predictions']['adme']}?sort=-permeability")
    # The 3D pages: Mol* with its legend and PAE heatmap, and two results superposed.
    design = f"{server.url}{public}/pipelines/{pipelines['protein_design']}"
    first = first_result(site, "protein_design")
    urls["structure"] = f"{design}/results/{first}/structure"
    urls["compare"] = f"{design}/compare?a={first}&b={first_result(site, 'protein_design', 1)}"
    urls["not-found"] = f"{server.url}/share/sl_{'n' * 32}"
    # The email-mode link sends a visitor without a session to its sign-in page.
    urls["sign-in"] = f"{server.url}/share/{seed['share_links']['email']['id']}"
    urls["error-400"] = f"{server.url}{public}/pipelines/{pipelines['protein_design']}?limit=0"
    urls["error-502"] = f"{broken.url}{public}"
    urls["embed-overview"] = f"{server.url}{public}?embed=1"
    return urls


PAGES = ["overview", *[f"results-{kind}" for kind in KINDS], "results-substructure",
         "result-protein",
         "result-small-molecule", "prediction", "prediction-adme", "structure", "compare",
         "not-found", "sign-in",
         "error-400",
         "error-502", "embed-overview"]


@pytest.fixture(scope="module")
def urls(site) -> dict[str, str]:
    """The URL of each page type on the live servers."""
    found = page_urls(site)
    assert sorted(found) == sorted(PAGES)
    return found


class Tab(Visitor):
    """One browser context and page at a given width, with JavaScript errors collected.

    ``audit=True`` creates the context with ``bypass_csp=True``. The app's CSP allows only
    scripts from its own origin (and the import map, by its hash), and Playwright's
    ``add_script_tag(path=...)`` inserts the file's text as an inline script, which that
    CSP blocks. Only the axe audit contexts bypass it; the keyboard and layout checks run
    with the app's CSP in force.
    """

    def __init__(self, browser, width: str = "desktop", audit: bool = False):
        super().__init__(browser, WIDTHS[width], bypass_csp=audit,
                         allow=tuple(f"status of {s}" for s in EXPECTED_STATUS.values()))

    def open(self, urls: dict[str, str], name: str, rows: int | None = None) -> None:
        """Open the page ``name`` (a results page with ``rows`` rows) and check its status."""
        url = urls[name] if rows is None else urls[name].replace("limit=25", f"limit={rows}")
        response = self.page.goto(url)
        assert response.status == EXPECTED_STATUS.get(name, 200), (name, response.status)
        self.page.wait_for_load_state("load")
        if self.page.locator("#structure-viewer").count():
            # Audit the 3D pages with Mol*'s interface and the PAE heatmap in place.
            self.page.wait_for_selector("#structure-viewer[data-loaded]", timeout=90_000)

    def close(self) -> None:
        """Close the context and fail on any JavaScript error seen."""
        self.context.close()
        assert self.errors == []


@pytest.fixture(scope="module")
def shared_tabs(browser):
    """The module's reusable tabs, one per width and mode (closed after the module)."""
    tabs: dict[tuple[str, bool], Tab] = {}
    yield tabs
    for tab in tabs.values():
        tab.context.close()


@pytest.fixture
def tab_factory(browser, shared_tabs):
    """Make ``Tab`` objects; each is checked for JS errors after the test.

    By default a test gets the module's tab of that width and mode, reused from test to
    test: every ``Tab.open`` loads a new document into it, and its error list starts
    empty for each test. A new browser page costs about a second of CPU (a renderer
    process, every script compiled anew), most of a short test's cost. ``fresh=True``
    makes a tab of the test's own, closed after it, for a test that changes the tab
    itself (its viewport, its listeners).
    """
    used: list[Tab] = []
    fresh_tabs: list[Tab] = []

    def make(width: str = "desktop", audit: bool = False, fresh: bool = False) -> Tab:
        if fresh:
            fresh_tabs.append(Tab(browser, width, audit))
            return fresh_tabs[-1]
        tab = shared_tabs.get((width, audit))
        if tab is None:
            tab = shared_tabs[(width, audit)] = Tab(browser, width, audit)
        tab.errors.clear()
        used.append(tab)
        return tab

    yield make
    for tab in fresh_tabs:
        tab.close()
    for tab in used:
        errors, tab.errors = list(tab.errors), []
        assert errors == []


def run_axe(page, selector: str | None = None, rules: list[str] | None = None) -> dict:
    """Inject axe-core into ``page`` and run the ``AXE_TAGS`` rules (or only ``rules``).

    On the whole document, or on the elements matching ``selector``. Returns
    ``{"violations": [...], "passes": <number of rules that passed>, "incomplete": [...]}``,
    each violation with its rule id, impact, help text and every offending node; each
    "needs review" rule as its id and node count.

    axe details every node only of the result types it is asked for (the others keep one
    node each): violations always, "needs review" only when ``AXE_REPORT`` is set, since
    only the report reads their node counts. Passes are counted by rule, so their nodes
    are never needed; detailing them was most of an audit's time on a long page.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    run_only = {"type": "rule", "values": rules} if rules else {"type": "tag",
                                                                "values": AXE_TAGS}
    detailed = ["violations", "incomplete"] if os.environ.get("AXE_REPORT") else ["violations"]
    return page.evaluate(
        """async ([selector, runOnly, resultTypes]) => {
            const result = await axe.run(selector ? {include: [selector]} : document, {
                runOnly: runOnly, resultTypes: resultTypes,
            });
            return {
                passes: result.passes.length,
                incomplete: result.incomplete.map((v) => v.id + " (" + v.nodes.length + ")"),
                violations: result.violations.map((v) => ({
                    id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.map((n) => ({target: n.target.join(" "),
                                                html: n.html.slice(0, 200),
                                                summary: n.failureSummary})),
                })),
            };
        }""",
        [selector, run_only, detailed],
    )


def record(name: str, width: str, result: dict) -> None:
    """Append one page's violations and "needs review" rules to the ``AXE_REPORT`` file.

    JSON lines. "Needs review" (axe's incomplete) is mostly colour contrast of table cells
    that are clipped by their scroll box, which axe cannot measure.
    """
    path = os.environ.get("AXE_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as report:
            report.write(json.dumps({"page": name, "width": width,
                                     "violations": result["violations"],
                                     "needs_review": result["incomplete"]}) + "\n")


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violation(urls, tab_factory, name, width):
    """Every page passes axe at both widths; on a phone it never scrolls sideways as a
    whole either (checked before the audit script is added)."""
    tab = tab_factory(width, audit=True)
    tab.open(urls, name)
    if width == "phone":
        widths = tab.page.evaluate(
            "({scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth})")
        assert widths["scroll"] <= widths["inner"] + 1, widths
    result = run_axe(tab.page)
    record(name, width, result)
    assert result["passes"] > 10  # axe really ran its rules on a real page
    blocking = [v for v in result["violations"] if v["impact"] in BLOCKING]
    assert blocking == [], json.dumps(blocking, indent=1)


def test_weak_values_stay_readable_on_a_hovered_row(urls, tab_factory):
    """Grey "weak" numbers keep 4.5:1 on the row highlight too (axe sees only one state)."""
    tab = tab_factory(audit=True)
    # The page opens with the best first: the weakest first here, so grey numbers show.
    weakest = {"results-weakest": urls["results-protein_design"] + "&sort=binding_confidence"}
    tab.open(weakest, "results-weakest")
    weak = tab.page.locator("table.results td.q-weak").first
    weak.hover()
    assert tab.page.evaluate(
        "getComputedStyle(document.querySelector('table.results td.q-weak').closest('tr'))"
        ".backgroundColor") == "rgb(230, 240, 250)"  # the hover highlight is measured
    result = run_axe(tab.page, "table.results td.q-weak", rules=["color-contrast"])
    assert result["passes"] == 1 and result["violations"] == []


def test_the_audit_catches_a_real_violation(urls, tab_factory):
    """The harness can fail: light-grey text and an unlabelled field are reported."""
    tab = tab_factory(audit=True)
    tab.open(urls, "overview")
    tab.page.evaluate("""() => {
        const p = document.createElement("p");
        p.textContent = "Hard to read";
        p.style.color = "#dddddd";
        const input = document.createElement("input");
        input.type = "text";
        document.querySelector("main").append(p, input);
    }""")
    found = {v["id"]: v["impact"] for v in run_axe(tab.page)["violations"]}
    assert found.get("color-contrast") == "serious"
    assert found.get("label") == "critical"


def test_without_bypass_the_csp_blocks_the_injected_audit_script(urls, tab_factory):
    """Why the audit contexts bypass the CSP: the app's policy refuses inline scripts."""
    tab = tab_factory(fresh=True)
    refusals: list[str] = []
    tab.page.on("console", lambda m: refusals.append(m.text)
                if "Content Security Policy" in m.text else None)
    tab.open(urls, "overview")
    with contextlib.suppress(playwright_api.Error):  # the refused script may raise
        tab.page.add_script_tag(path=str(AXE))
    assert tab.page.evaluate("typeof window.axe") == "undefined"
    assert refusals
    tab.errors = [e for e in tab.errors if "Content Security Policy" not in e]


def wait_until(page, condition: str, seconds: float = 5.0) -> None:
    """Poll the JavaScript expression ``condition`` until it is true, or fail.

    (``page.wait_for_function`` evaluates a string with ``eval``, which the app's CSP
    forbids in the contexts that keep it.)
    """
    for _ in range(int(seconds * 10)):
        if page.evaluate(condition):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"still false after {seconds} s: {condition}")


# -- keyboard ---------------------------------------------------------------------------

FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) { return null; }
    const style = getComputedStyle(el);
    return {
        tag: el.tagName.toLowerCase(), id: el.id, cls: el.className,
        text: (el.innerText || el.value || "").trim().slice(0, 40),
        rel: el.getAttribute("rel"), inSortHeader: !!el.closest("thead th"),
        outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth),
        outlineColor: style.outlineColor, boxShadow: style.boxShadow,
        visible: el.getClientRects().length > 0,
    };
}"""


def luminance(rgb: tuple[int, ...]) -> float:
    """Relative luminance of an sRGB colour (WCAG 2.1)."""
    channels = [c / 255 for c in rgb[:3]]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def indicator_contrast(focused: dict) -> float:
    """Best contrast against white of the focus indicator's colours (outline, box-shadow).

    WCAG 2.1 SC 1.4.11 asks 3:1 for the parts that show focus; the pages are white or
    near-white behind every control, so white stands for the background.
    """
    colours = [focused["outlineColor"]] if focused["outlineStyle"] != "none" else []
    if focused["boxShadow"] != "none":
        colours.append(focused["boxShadow"])
    best = 1.0
    for text in colours:
        match = re.search(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)", text)
        if match and (match.group(4) is None or float(match.group(4)) > 0.5):
            rgb = tuple(int(x) for x in match.groups()[:3])
            best = max(best, 1.05 / (luminance(rgb) + 0.05))
    return best


def tab_until(page, wanted, limit: int = 200) -> list[dict]:
    """Press Tab until ``wanted(focused)`` is true; return every focus stop on the way.

    Fails when ``limit`` presses do not get there (the element is not reachable).
    """
    stops: list[dict] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:
            continue
        stops.append(focused)
        if wanted(focused):
            return stops
    raise AssertionError(f"not reached with {limit} Tab presses; stops: {stops[-10:]}")


@pytest.mark.parametrize("name", ["overview", "results-protein_design", "result-protein",
                                  "sign-in", "not-found"])
def test_tab_reaches_the_skip_link_first_and_it_moves_focus_to_main(urls, tab_factory, name):
    tab = tab_factory()
    tab.open(urls, name)
    page = tab.page
    page.keyboard.press("Tab")
    first = page.evaluate(FOCUSED)
    assert first["cls"] == "skip-link" and first["text"] == "Skip to content"
    box = page.locator(".skip-link").bounding_box()
    assert box["x"] >= 0 and box["y"] >= 0  # shown on screen while focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # The next Tab goes on from the content, not back through the header (the 404 page
    # has no control in its content: there focus leaves the page or wraps around).
    controls = "a[href], button, input, select, textarea, summary, [tabindex='0']"
    if page.locator(f"main :is({controls})").count():
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('main') !== null")


def test_sort_headers_work_by_keyboard(urls, tab_factory):
    tab = tab_factory()
    tab.open(urls, "results-small_molecule_design")
    page = tab.page
    stops = tab_until(page, lambda f: f["inSortHeader"] and f["text"].startswith("Binding"))
    assert stops[-1]["tag"] == "a"
    index = page.evaluate("[...document.activeElement.closest('tr').cells]"
                          ".indexOf(document.activeElement.closest('th'))")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    header = page.locator("table.results thead th").nth(index)
    assert header.get_attribute("aria-sort") == "descending"
    values = [float(t) for t in page.locator(
        f"table.results tbody tr > :nth-child({index + 1})").all_inner_texts()]
    assert len(values) > 3 and values == sorted(values, reverse=True)

def test_pagination_links_work_by_keyboard(urls, tab_factory):
    tab = tab_factory()
    tab.open(urls, "results-protein_design", rows=5)
    page = tab.page
    first_ids = page.locator("table.results tbody th a").all_inner_texts()
    tab_until(page, lambda f: f["rel"] == "next")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "page=2" in page.url  # the ranked view's pages
    second_ids = page.locator("table.results tbody th a").all_inner_texts()
    assert len(second_ids) == 5 and not set(first_ids) & set(second_ids)
    tab_until(page, lambda f: f["rel"] == "prev")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("table.results tbody th a").all_inner_texts() == first_ids


@pytest.mark.parametrize("name", ["overview", "results-small_molecule_design",
                                  "result-protein", "prediction", "prediction-adme",
                                  "sign-in", "error-502"])
def test_every_focus_stop_shows_an_outline(urls, tab_factory, name):
    tab = tab_factory()
    tab.open(urls, name, rows=5 if name.startswith("results-") else None)
    page = tab.page
    seen, missing = 0, []
    start = None
    for _ in range(150):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:
            break  # focus left the document: every stop was visited
        key = (focused["tag"], focused["id"], focused["cls"], focused["text"])
        if key == start:
            break
        start = start or key
        seen += 1
        outlined = focused["outlineStyle"] != "none" and focused["outlineWidth"] >= 2
        if not (outlined and focused["visible"] and indicator_contrast(focused) >= 3):
            missing.append(focused)
    assert seen >= 2  # the skip link and at least one control of the page
    assert missing == []


# -- phone width ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["results-small_molecule_library_screen",
                                  "results-protein_sequence_redesign"])
def test_wide_tables_scroll_inside_their_own_container_on_a_phone(urls, tab_factory, name):
    tab = tab_factory("phone")
    tab.open(urls, name)
    # A phone first shows the rank, name and key metrics that fit; every column on request.
    tab.page.locator("label[for=all-columns]").click()
    box = tab.page.evaluate("""() => {
        const scroller = document.querySelector(".table-scroll");
        const table = scroller.querySelector("table");
        return {overflow: getComputedStyle(scroller).overflowX,
                scroll: scroller.scrollWidth, client: scroller.clientWidth,
                table: table.getBoundingClientRect().width, inner: window.innerWidth,
                focusable: scroller.tabIndex, role: scroller.getAttribute("role"),
                label: scroller.getAttribute("aria-labelledby")};
    }""")
    assert box["overflow"] in ("auto", "scroll")
    assert box["scroll"] > box["client"] and box["table"] > box["inner"]  # wider than a phone
    assert box["client"] <= box["inner"]
    # The caption (what the table shows, what bold and grey mean) stays readable on
    # screen, and in view while the table scrolls.
    caption = "document.querySelector('.table-scroll caption').getBoundingClientRect()"
    assert tab.page.evaluate(f"{caption}.right") <= box["inner"]
    # Keyboard users can scroll it too: a named, focusable region.
    assert box["focusable"] == 0 and box["role"] == "region" and box["label"]
    scroller = tab.page.locator(".table-scroll")
    scroller.focus()
    tab.page.keyboard.press("ArrowRight")
    # Chromium scrolls smoothly: wait for the box to move.
    wait_until(tab.page, "document.querySelector('.table-scroll').scrollLeft > 0")
    assert tab.page.evaluate("window.scrollX") == 0
    assert tab.page.evaluate(f"{caption}.left") >= 0


def test_a_table_that_fits_is_no_extra_tab_stop(urls, tab_factory):
    """viewer.js keeps scroll boxes in the Tab order only while they scroll."""
    wide = tab_factory("desktop", fresh=True)
    wide.open(urls, "result-protein")
    metrics = wide.page.locator("section[aria-labelledby=metrics-heading] .table-scroll")
    assert metrics.get_attribute("role") == "region"
    assert metrics.get_attribute("tabindex") is None
    wide.page.set_viewport_size({"width": 300, "height": 700})  # now it must scroll
    wait_until(wide.page, "document.querySelector('section[aria-labelledby=metrics-heading]"
                          " .table-scroll').getAttribute('tabindex') === '0'")
