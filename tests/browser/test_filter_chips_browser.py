"""Filters that remember each other, in Chromium through gunicorn over the seeded demo: a
protein design view with an epitope filter, a sequence filter and a number filter keeps
all three through "Apply filters", shows them as three chips, and removing one chip keeps
the other two. The chips' words and links, and the form's hidden fields, are server HTML:
tests/viewer/explore/test_chips.py."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _args(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _chips(page) -> list[str]:
    return page.eval_on_selector_all(".filter-chips .chip",
                                     "chips => chips.map(c => c.dataset.chipKey)")


def test_three_filters_survive_apply_and_a_chip_removes_only_its_own(site, visitor,
                                                                      shots_dir):
    server, seed = site
    link = seed["share_links"]["public"]["id"]
    page = visitor.page
    visitor.goto(f"{server.url}/share/{link}/pipelines/{seed['pipelines']['protein_design']}"
                 "?contacts_any=B:82,B:83&liabilities=none")
    assert _chips(page) == ["liabilities", "contacts_any"]
    page.locator("details.explore-filters").evaluate("d => d.open = true")
    page.locator("input[name='iptm__gte']").fill("0.5")
    page.locator("details.explore-filters button[type=submit]").click()
    page.wait_for_load_state()
    args = _args(page)
    assert args["contacts_any"] == ["B:82,B:83"]
    assert args["liabilities"] == ["none"]
    assert args["iptm__gte"] == ["0.5"]
    assert sorted(_chips(page)) == ["contacts_any", "iptm__gte", "liabilities"]
    page.locator(".filter-chips").scroll_into_view_if_needed()
    page.screenshot(path=str(shots_dir / "filter-chips.png"), full_page=False)

    page.locator(".chip[data-chip-key='liabilities'] .chip-remove").click()
    page.wait_for_load_state()
    args = _args(page)
    assert "liabilities" not in args
    assert args["contacts_any"] == ["B:82,B:83"] and args["iptm__gte"] == ["0.5"]
    assert sorted(_chips(page)) == ["contacts_any", "iptm__gte"]
    assert visitor.errors == []
