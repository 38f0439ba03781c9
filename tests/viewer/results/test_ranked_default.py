"""The results page opens ranked (issue 19 items 1 and 2): by the kind's primary metric,
with a Rank column, each row named by its label and linking with the view's args; while
the index is not ready, the API's first page in the run's order with a notice."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import pytest

from app.viewer.explore.index import indexer
from tests.support.links import seed_link

ROW = re.compile(r'<td class="col-rank num">(\d+)</td>\s*<th scope="row" class="col-id">'
                 r'<a href="([^"]+)" class="rid" title="([^"]+)">([^<]+)</a>')
API_ROW = re.compile(r'<th scope="row" class="col-id"><a href="([^"]+)" class="rid" '
                     r'title="([^"]+)">([^<]+)</a>')


@pytest.fixture
def shared(app, org):
    """A link whose protein_design pipeline has 60 results and small-molecule design 12."""
    return seed_link(app, org, {"protein_design": 60, "small_molecule_design": 12})


def _metric(client, shared, kind: str, key: str) -> dict[str, float]:
    pipeline_id = shared.pipelines[kind]
    records = client.get(
        f"/compute/v1/share/{shared.link_id}/pipelines/{pipeline_id}/results?limit=1000"
    ).get_json()["data"]
    return {r["id"]: r["metrics"].get(key) for r in records}


@pytest.mark.parametrize(("kind", "primary"), [("protein_design", "binding_confidence"),
                                                ("small_molecule_design", "optimization_score")])
def test_the_default_view_is_ranked_by_the_primary_metric(client, shared, kind, primary):
    values = _metric(client, shared, kind, primary)
    body = client.get(shared.url(f"/pipelines/{shared.pipelines[kind]}?limit=10&page=1")
                      ).get_data(as_text=True)
    rows = ROW.findall(body)
    assert [int(r[0]) for r in rows] == list(range(1, 11))
    ids = [r[2] for r in rows]
    best = sorted(values, key=lambda i: (-values[i], i))[:10]
    assert ids == best
    # Each row reads as its label (#rank in the run, the id's tail); the full id stays
    # in its title and its Copy button.
    for rank, (_n, href, full_id, label) in enumerate(rows, start=1):
        assert label.startswith(f"#{rank} ") and full_id.endswith(label.split()[1])
        assert f'data-copy="{full_id}"' in body
        # The row's link carries the view (its order), not how it is paged.
        args = parse_qs(urlsplit(html.unescape(href)).query)
        assert args == {"sort": [f"-{primary}"]}
    assert "best first" in body and 'aria-current="true">Best' in body
    # Page 2 goes on counting.
    second = client.get(shared.url(f"/pipelines/{shared.pipelines[kind]}?limit=10&page=2")
                        ).get_data(as_text=True)
    assert [int(r[0]) for r in ROW.findall(second)] == list(range(11, min(20, len(values)) + 1))


def test_as_run_is_the_way_back_to_creation_order(client, shared):
    path = shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
    body = client.get(path).get_data(as_text=True)
    assert "sort=created_at" in body  # the "As run" choice
    as_run = client.get(f"{path}?sort=created_at&limit=20&warnings=none"
                        ).get_data(as_text=True)
    rows = ROW.findall(as_run)
    assert [r[2] for r in rows] == sorted(r[2] for r in rows)
    assert "in the order they were run" in as_run
    args = parse_qs(urlsplit(html.unescape(rows[0][1])).query)
    assert args == {"sort": ["created_at"], "warnings": ["none"]}


@pytest.mark.slow
def test_the_plots_are_one_click_away_below_the_order(client, shared):
    body = client.get(shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
                      ).get_data(as_text=True)
    panel = body.index('<details class="plots-panel" id="plots-panel">')
    assert body.index('id="explore"') > panel  # inside the closed panel
    assert '<details class="plots-panel" id="plots-panel" open' not in body


def test_scatter_points_carry_the_labels(client, shared):
    path = shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
    page = client.get(f"{path}?limit=5").get_data(as_text=True)
    labels = {full_id: label for _n, _h, full_id, label in ROW.findall(page)}
    points = client.get(f"{path}/explore.json").get_json()["points"]["data"]
    assert {p["id"]: p["label"] for p in points[:5]} == labels  # ranked: the same five


def test_while_the_index_builds_the_first_results_show_in_run_order(client, shared,
                                                                    monkeypatch):
    ensure = indexer.ensure

    def building(link_id, pipeline):  # a big run: the index is still being read
        return replace(ensure(link_id, pipeline), state="building", indexed=20)

    monkeypatch.setattr(indexer, "ensure", building)
    ids = shared.results["protein_design"]
    path = shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
    body = client.get(f"{path}?limit=25").get_data(as_text=True)
    rows = API_ROW.findall(body)
    assert [r[1] for r in rows] == ids[:25]  # at once, in the run's order
    assert "Ranking by Binding confidence starts when the index is ready" in body
    assert 'id="index-progress" value="20"' in body and 'data-on-ready="offer"' in body
    assert "col-rank" not in body  # no rank until there is one
    args = parse_qs(urlsplit(html.unescape(rows[0][0])).query)
    assert args == {"sort": ["created_at"]}
    # An explicit sort still waits for the index (its progress, no rows).
    sorted_body = client.get(f"{path}?sort=-iptm").get_data(as_text=True)
    assert not API_ROW.findall(sorted_body) and 'id="index-progress"' in sorted_body
