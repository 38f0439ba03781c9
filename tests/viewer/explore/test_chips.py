"""The filters in force as chips, and the filter form carrying every key in force, as
server HTML over the shared demo (the browser's side: tests/browser/
test_filter_chips_browser.py)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.html import form_query, one, page, text, texts

VIEW = "?contacts_any=B:82,B:83&liabilities=none&iptm__gte=0.5&diverse=10"


def _path(demo: dict, kind: str = "protein_design", query: str = "") -> str:
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][kind]}{query}")


def _args(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


@pytest.mark.reads_demo
def test_every_filter_in_force_is_a_chip_whose_link_drops_only_it(client, demo):
    soup = page(client, _path(demo, query=VIEW))
    chips = soup.select(".filter-chips .chip")
    assert [c["data-chip-key"] for c in chips] == [
        "iptm__gte", "liabilities", "diverse", "contacts_any"]
    assert texts(soup, ".filter-chips .chip-label") == [
        "ipTM ≥ 0.5", "Without sequence liabilities", "Top 10 families",
        "Contacts any of B:82, B:83"]
    wanted = {"contacts_any": ["B:82,B:83"], "liabilities": ["none"], "iptm__gte": ["0.5"],
              "diverse": ["10"]}
    for chip in chips:
        key = chip["data-chip-key"]
        kept = _args(one(chip, ".chip-remove")["href"])
        assert key not in kept
        assert {k: v for k, v in kept.items() if k in wanted} == {
            k: v for k, v in wanted.items() if k != key}
        assert "sort" in kept  # the view's order stays


@pytest.mark.reads_demo
def test_apply_filters_keeps_every_key_in_force(client, demo):
    soup = page(client, _path(demo, query=VIEW + "&limit=50"))
    form = one(soup, "details.explore-filters form")
    sent = parse_qs(form_query(form, iptm__gte="0.6"))
    assert sent["contacts_any"] == ["B:82,B:83"] and sent["liabilities"] == ["none"]
    assert sent["diverse"] == ["10"] and sent["limit"] == ["50"]
    assert sent["iptm__gte"] == ["0.6"]
    # No key twice: the range box is the only field of iptm__gte.
    assert len(form.select("[name='iptm__gte']")) == 1


@pytest.mark.reads_demo
def test_removing_similar_to_drops_the_similarity_it_decides(client, demo):
    kind = "small_molecule_library_screen"
    soup = page(client, _path(demo, kind, "?similar_to=CCO&sort=-similarity"
                                          "&similarity__gte=0.1&alerts=none"))
    chip = one(soup, ".chip[data-chip-key='similar_to']")
    kept = _args(one(chip, ".chip-remove")["href"])
    assert "similarity__gte" not in kept and "similarity" not in kept.get("sort", [""])[0]
    assert kept["alerts"] == ["none"]
    assert client.get(urlsplit(one(chip, ".chip-remove")["href"]).path + "?"
                      + urlsplit(one(chip, ".chip-remove")["href"]).query).status_code == 200


@pytest.mark.reads_demo
def test_the_result_page_shows_the_chips_of_the_view_it_walks(client, demo):
    view = page(client, _path(demo, query="?liabilities=none&iptm__gte=0.5"))
    first = view.select("table.results tbody tr")[0]["data-result-id"]
    soup = page(client, _path(demo, query=f"/results/{first}?liabilities=none&iptm__gte=0.5"))
    assert texts(soup, ".filter-chips .chip-label") == [
        "ipTM ≥ 0.5", "Without sequence liabilities"]
    removal = one(soup, ".chip[data-chip-key='liabilities'] .chip-remove")["href"]
    assert f"/results/{first}" in removal and _args(removal)["iptm__gte"] == ["0.5"]
    assert "liabilities" not in _args(removal)
    assert "in force" in text(one(soup, ".filter-chips"))
