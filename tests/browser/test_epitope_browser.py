"""Epitopes in Chromium, through gunicorn over the seeded demo: the results page of the
IL-6 design run reads every design's structure in the background (its progress shown),
then draws the contact-frequency strip over the target sequence; following its most
contacted residue lists as many designs as its cell said; a design's 3D page marks its
epitope in the pictured colour and lists that residue. That these are the contacts the
structure files hold (recomputed with Biopython) is asserted in process:
``tests/viewer/epitope/test_epitope.py``. Screenshots go to ``shots_dir`` (and
/tmp/shots/issue20/epitope if it exists).
"""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path

import pytest

from tests.browser.conftest import Visitor, seeded_site_env
from tests.support.servers import start_gunicorn, stop_gunicorn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
EXTRA_SHOTS = Path("/tmp/shots/issue20/epitope")
READY = "#structure-viewer[data-drawn='true']"
EPITOPE = (0xC2, 0x25, 0x5C)
_COUNT = """
async ([png, ref]) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = new OffscreenCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, image.width, image.height).data;
  const norm = Math.hypot(...ref);
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    const n = Math.hypot(r, g, b);
    if (n > 60 && (r * ref[0] + g * ref[1] + b * ref[2]) / (n * norm) > 0.996) count++;
  }
  return count;
}"""


def _shot(locator, shots_dir: Path, name: str, **options) -> None:
    locator.screenshot(path=str(shots_dir / name), **options)
    if EXTRA_SHOTS.is_dir():
        locator.screenshot(path=str(EXTRA_SHOTS / name), **options)


@pytest.fixture(scope="module")
def scanning_site(tmp_path_factory):
    """A site of its own with the epitope scan on (the shared sites have it off)."""
    tmp = tmp_path_factory.mktemp("epitope-site")
    env, seed = seeded_site_env(tmp)
    server = start_gunicorn({**env, "FLASK_EPITOPE_SCAN": "true"}, tmp)
    yield server, seed
    stop_gunicorn(server)


def test_strip_filter_and_3d_mark_of_the_epitope(scanning_site, browser, shots_dir):
    server, seed = scanning_site
    link = seed["share_links"]["public"]["id"]
    pid = seed["pipelines"]["protein_design"]
    path = f"{server.url}/share/{link}/pipelines/{pid}"
    v = Visitor(browser, viewport={"width": 1500, "height": 1000})
    # Long timeouts: the server's workers read 260 structures meanwhile (shared CI cores).
    v.page.set_default_navigation_timeout(120_000)
    v.page.set_default_timeout(120_000)
    v.goto(path)
    deadline = time.monotonic() + 600
    while v.page.locator("#epitope .epitope-progress").count():
        assert "designs read" in v.page.locator("#epitope .epitope-progress").inner_text()
        assert time.monotonic() < deadline
        time.sleep(5)
        v.goto(path)
    strip = v.page.locator("#epitope")
    assert strip.locator(".epitope-strip .epitope-cell").count() > 100  # IL-6: every residue
    heights = strip.locator("a.epitope-cell rect.bar").evaluate_all(
        "rects => rects.map(r => r.getBoundingClientRect().height)")
    assert max(heights) > 20  # the main epitope's bars stand out
    _shot(strip, shots_dir, "epitope-strip.png")

    # The most contacted residue, from the text alternative; its number of designs.
    top = strip.locator(".epitope-top a").first
    number = int(re.match(r"[A-Z](\d+) \(B\)", top.inner_text()).group(1))
    cell = strip.locator(f'a.epitope-cell[aria-label^="B:{number} "]')
    designs = int(re.search(r"\((\d+)\)$", cell.get_attribute("aria-label")).group(1))
    cell.click()
    v.page.wait_for_load_state()
    assert f"contacts_any=B%3A{number}" in v.page.url or f"contacts_any=B:{number}" in v.page.url
    # The view lists as many designs as the cell said (which they are, recomputed from the
    # files with Biopython: tests/viewer/epitope/test_epitope.py).
    assert int(v.page.locator("#match-count").inner_text().replace("\u2009", "")) == designs
    shown = set(v.page.eval_on_selector_all("table.results tbody tr",
                                            "rows => rows.map(r => r.dataset.resultId)"))
    assert shown
    assert v.page.locator(f'a.epitope-cell.chosen[aria-label^="B:{number} "]').count() == 1
    strip.scroll_into_view_if_needed()
    _shot(v.page.locator("#epitope"), shots_dir, "epitope-filtered.png")

    # The first design of that view in 3D: its epitope listed and drawn.
    rid = sorted(shown)[0]
    v.goto(f"{path}/results/{rid}/structure")
    v.page.wait_for_selector(READY, timeout=120_000)
    v.page.wait_for_timeout(1500)
    legend = v.page.locator("#epitope-legend").inner_text()
    listed = set()
    for span in re.search(r"Chain B: ([\d, -]+)", legend).group(1).split(", "):
        first, _, last = span.strip().partition("-")
        listed.update(range(int(first), int(last or first) + 1))
    assert number in listed
    png = v.page.locator("#structure-viewer").screenshot()
    assert v.page.evaluate(_COUNT, [base64.b64encode(png).decode(), list(EPITOPE)]) > 300
    _shot(v.page, shots_dir, "epitope-3d.png", full_page=True)
    v.close()
    assert v.errors == []
