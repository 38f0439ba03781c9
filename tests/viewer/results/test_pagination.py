"""Keyset pagination of the results table: rel links, page sizes, the id filter."""

from __future__ import annotations

import html
import re

import pytest

from tests.viewer.conftest import seed_link

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


def test_walk_forward_and_back_without_overlap(client, big):
    expected = big.results["protein_design"]
    path = big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=100")
    pages, seen = [], []
    while path:
        body = client.get(path).get_data(as_text=True)
        ids = row_ids(body)
        assert ids, path
        pages.append(ids)
        seen.extend(ids)
        next_path = rel_link(body, "next")
        if next_path:
            assert f'<link rel="next" href="{html.escape(next_path)}">' in body
        path = next_path
    assert [len(p) for p in pages] == [100, 100, 50]
    assert seen == expected  # every result once, in id order, no overlap
    # ... and back from the last page.
    last = client.get(big.url(f"/pipelines/{big.pipelines['protein_design']}?limit=100"
                              f"&after_id={pages[1][-1]}")).get_data(as_text=True)
    back = client.get(rel_link(last, "prev")).get_data(as_text=True)
    assert row_ids(back) == pages[1]
    first = client.get(rel_link(back, "prev")).get_data(as_text=True)
    assert row_ids(first) == pages[0]
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
    assert row_ids(body) == wanted
    assert "3 of the 4 pasted ids found" in body


@pytest.mark.parametrize("query", ["limit=0", "limit=5000", "limit=x", "after_id=%3Cx%3E",
                                   "after_id=a&before_id=b", "ids=bad%21id"])
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
