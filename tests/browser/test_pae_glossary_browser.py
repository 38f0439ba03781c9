"""The PAE heatmap from the keyboard, in
Chromium against gunicorn on the demo.

Focusing the heatmap and pressing arrow keys moves a cursor whose pair and error are read
out through the aria-live #pae-cursor (the same value pae.json holds for that cell);
Enter selects that cell as a click does. (The prediction page's best samples and glossary
links are server HTML: tests/viewer/pages/test_views.py.)
Screenshots go to /tmp/shots/issue20/predictions/ when that folder exists.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import httpx
import pytest

from tests.browser.test_structure_browser import _first_results, _public

pytestmark = [pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")
SHOTS = Path("/tmp/shots/issue20/predictions")


def _shot(page, name: str) -> None:
    if SHOTS.is_dir():
        page.screenshot(path=str(SHOTS / name), full_page=True)


def test_arrow_keys_move_a_cursor_whose_value_is_read_out(site, visitor):
    _server, seed = site
    pipeline = seed["pipelines"]["small_molecule_design"]
    result = _first_results(site, "small_molecule_design", 1)[0]
    url = f"{_public(site)}/pipelines/{pipeline}/results/{result}/structure"
    heat = httpx.get(f"{url}/pae.json", timeout=30).json()
    values = base64.b64decode(heat["values"])
    page = visitor.page
    visitor.goto(url)
    page.wait_for_selector("#pae-panel[data-ready='true']", timeout=90_000)
    page.focus("#pae-canvas")
    page.keyboard.press("ArrowDown")  # the first key puts the cursor on the first cell
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "Shift+ArrowRight"):
        page.keyboard.press(key)
    i, j = 1, 12  # down 1; right 2 + 10
    said = page.inner_text("#pae-cursor")
    want = values[i * heat["n"] + j] * heat["step"]
    assert re.fullmatch(r".+ \u00d7 .+: \d+\.\d Å", said), said
    assert said.endswith(f": {want:.1f} Å")
    assert page.get_attribute("#pae-cursor", "aria-live") == "polite"
    assert page.inner_text("#pae-hover") == said  # sighted keyboard users read it too
    page.keyboard.press("Enter")
    assert page.inner_text("#pae-selection").startswith("Selected: aligned on ")
    assert page.get_attribute("#pae-panel", "data-selected") == "true"
    # The page did not scroll away with the arrows: the canvas keeps the focus.
    assert page.evaluate("document.activeElement.id") == "pae-canvas"
    download = page.get_attribute("#pae-download", "href")
    assert download.endswith("/structure/pae.alphafold.json")
    _shot(page, "pae-keyboard.png")


