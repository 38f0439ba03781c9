"""Keyset pagination of the results table: rel links, page sizes, the id filter."""

from __future__ import annotations

import html
import random
import re

import pytest

from app.platform.db import get_engine
from app.store import schema
from tests.support import factories
from tests.support import html as html_page
from tests.support.links import seed_link

ROW_ID = re.compile(r'<th scope="row" class="col-id"><a href="[^"]+/results/([^"?]+)')


def rel_link(body: str, rel: str) -> str | None:
    """Return the <a rel=...> href of a page, or None."""
    match = re.search(rf'<a rel="{rel}" class="button" href="([^"]+)"', body)
    return html.unescape(match.group(1)) if match else None


def row_ids(body: str) -> list[str]:
    """Return the result ids of the table rows, in order."""
    return ROW_ID.findall(body)


@pytest.fixture
def big(app, org):
    """A link whose protein_design pipeline has 250 results."""
    return seed_link(app, org, {"protein_design": 250})


def _walk(client, path: str) -> list[list[str]]:
    """Follow rel=next from ``path``; return the row ids of each page."""
    pages = []
    while path:
        body = client.get(path).get_data(as_text=True)
        ids = row_ids(body)
        assert ids, path
        pages.append(ids)
        next_path = rel_link(body, "next")
        if next_path:
            assert f'<link rel="next" href="{html.escape(next_path)}">' in body
        path = next_path
    return pages


@pytest.mark.slow
def test_the_default_view_is_ranked_and_as_run_is_creation_order(client, big):
    expected = big.results["protein_design"]
    base = big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=100")
    ranked = _walk(client, base)
    assert [len(p) for p in ranked] == [100, 100, 50]
    seen = [i for p in ranked for i in p]
    assert sorted(seen) == sorted(expected) and seen != expected  # each once, ranked
    first = client.get(base).get_data(as_text=True)
    assert [int(r) for r in re.findall(r'<td class="col-rank num">(\d+)</td>', first)] == \
        list(range(1, 101))
    # "As run": the API's order (creation order), the same ids in id order.
    as_run = _walk(client, f"{base}&sort=created_at")
    assert [i for p in as_run for i in p] == expected


@pytest.mark.slow
def test_walk_forward_and_back_without_overlap(client, big):
    """The API's keyset cursors walk the run's order; their links stay on it."""
    expected = big.results["protein_design"]
    path = big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=100"
                   f"&after_id={expected[99]}")
    pages = _walk(client, path)
    assert [len(p) for p in pages] == [100, 50]
    assert [i for p in pages for i in p] == expected[100:]
    # ... and back from the last page.
    last = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=100"
                              f"&after_id={pages[0][-1]}")).get_data(as_text=True)
    assert "sort=created_at" in rel_link(last, "prev")
    back = client.get(rel_link(last, "prev")).get_data(as_text=True)
    assert row_ids(back) == pages[0]
    first = client.get(rel_link(back, "prev")).get_data(as_text=True)
    assert row_ids(first) == expected[:100]
    assert rel_link(first, "prev") is None
    assert rel_link(first, "next") is not None


def test_page_size_choice_is_kept_on_links(client, big):
    body = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=25")
                      ).get_data(as_text=True)
    assert len(row_ids(body)) == 25
    assert "limit=25" in rel_link(body, "next")
    assert '<option value="25" selected>' in body


def test_pasted_ids_show_just_those_results(client, big):
    wanted = big.results["protein_design"][5:8]
    pasted = f"{wanted[0]}\n{wanted[1]}, {wanted[2]} res_unknown"
    response = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}"),
                          query_string={"ids": pasted})
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert sorted(row_ids(body)) == sorted(wanted)  # ranked, as every default view
    assert "3 of the 4 pasted found" in body
    notes = html_page.parse(body).select("#ids-notes li")
    assert [html_page.text(n) for n in notes] == ["res_unknown matches no result of this run."]


LABELLED_ROW = re.compile(r'<th scope="row" class="col-id"><a href="[^"]+" class="rid" '
                          r'title="([^"]+)">([^<]+)</a>')


def _labelled(client, big) -> list[tuple[str, str]]:
    """Return (id, label) of the ranked view's first rows, best first."""
    body = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=10")
                      ).get_data(as_text=True)
    return LABELLED_ROW.findall(body)


def _pasted(client, big, text: str, **args):
    response = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}"),
                          query_string={"ids": text, **args})
    soup = html_page.parse(response)  # a 200, whatever was pasted
    return [a["title"] for a in soup.select("th.col-id a.rid")], soup


def test_labels_as_shown_find_their_results(client, big):
    rows = _labelled(client, big)
    (id3, label3), (id5, label5), (id7, _label7) = rows[2], rows[4], rows[6]
    assert label3.startswith("#3 ")
    tail3, tail5 = label3.split()[1], label5.split()[1]
    # Tails as the table shows them, comma separated ("WGK2,QPZ9").
    shown, soup = _pasted(client, big, f"{tail3},{tail5}")
    assert shown == [id3, id5]
    assert "2 of the 2 pasted found" in html_page.text(html_page.one(soup, ".view-order"))
    assert not soup.select("#ids-notes")
    # A whole label ("#3 WGK2"), once a full-page 400.
    assert _pasted(client, big, label3)[0] == [id3]
    # Ids and labels mixed, on lines, after spaces and commas; what matches nothing named.
    shown, soup = _pasted(client, big, f"{id7}\n{label3}  {tail5},ZZZZ\nnot/an-id")
    assert sorted(shown) == sorted([id7, id3, id5])
    notes = [html_page.text(n) for n in soup.select("#ids-notes li")]
    assert notes[0] == "ZZZZ matches no result of this run."
    assert notes[1].startswith("not/an-id is neither an id nor a label")
    assert html_page.one(soup, "#ids")["aria-describedby"] == "ids-notes"
    assert html_page.one(soup, "#ids").get_text().split("\n") == \
        [id7, label3, tail5, "ZZZZ", "not/an-id"]
    # A label whose rank is not the result's: the tail decides, the rank now is said.
    shown, soup = _pasted(client, big, f"#9 {tail3}")
    assert shown == [id3]
    assert [html_page.text(n) for n in soup.select("#ids-notes li")] == \
        [f"#9 {tail3} is {label3} now (the run's ranking moved); shown."]


def test_a_list_naming_nothing_shows_nothing(client, big):
    shown, soup = _pasted(client, big, "ZZZZ bad!id")
    assert shown == []
    assert len(soup.select("#ids-notes li")) == 2


def test_pasted_labels_are_what_the_exports_hold(client, big):
    rows = _labelled(client, big)
    (id2, label2), (id4, label4) = rows[1], rows[3]
    pipeline = big.pipelines["protein_design"]
    for extension in ("csv", "fasta"):
        response = client.get(big.url(f"/pipelines/{pipeline}/export.{extension}"),
                              query_string={"ids": f"{label4}, {label2.split()[1]} ZZZZ"})
        assert response.status_code == 200, response.get_data(as_text=True)[:500]
        text = response.get_data(as_text=True)
        assert id2 in text and id4 in text
        assert sum(1 for i in big.results["protein_design"] if i in text) == 2


@pytest.mark.parametrize("query", ["limit=0", "limit=5000", "limit=x", f"after_id={'x' * 65}",
                                   "after_id=a&before_id=b"])
def test_invalid_table_queries_get_a_400_page(client, big, query):
    response = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}?{query}"))
    assert response.status_code == 400
    assert response.mimetype == "text/html"


def test_too_many_pasted_ids_is_a_400(client, big):
    ids = ",".join(f"res_{i}" for i in range(201))
    response = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}"),
                          query_string={"ids": ids})
    assert response.status_code == 400
    assert "at most 200" in response.get_data(as_text=True)


def test_the_table_pages_past_records_it_cannot_show(app, client, org):
    # Records stored under ids the API did not make: the table cannot link them (skipped,
    # core.records), yet their ids are the API's page boundaries, and so the viewer's.
    odd = ["res_\u00e901", "res_02.x", "res_03 space"]
    shared = seed_link(app, org, {"protein_design": 4})
    pipeline = shared.pipelines["protein_design"]
    with get_engine(app).begin() as conn:
        conn.execute(schema.results.insert(), [
            {**factories.result_row("protein_design", pipeline, n, random.Random(n)), "id": i}
            for n, i in enumerate(odd)])
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], odd)
    # Cursor pages are the API's pages (an index would page by number).
    pages, path = [], shared.url(f"/pipelines/{pipeline}?sort=created_at&limit=2&after_id=res_0")
    while path:
        response = client.get(path)
        assert response.status_code == 200, path
        body = response.get_data(as_text=True)
        pages.append(row_ids(body))
        path = rel_link(body, "next")
    assert [i for page in pages for i in page] == shared.results["protein_design"]
    assert len(pages) == 4  # 7 results in pages of 2, the odd ones not shown
