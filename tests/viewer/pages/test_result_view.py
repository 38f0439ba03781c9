"""A result page walks the results view it was opened from (issue 19 item 4): Previous and
Next are its neighbours in that view's order, the trail and "All results" lead back to it,
a bad view arg is the table's 400, and without view args the run's default order (the
kind's primary metric) once the index is ready. The 3D page keeps the view too, and both
name the result by its label (item 2)."""

from __future__ import annotations

import re

import pytest

from app import domain
from app.platform.db import get_engine
from app.viewer.core import paging
from app.viewer.explore.index import indexer
from app.viewer.explore.labels import run_labels
from tests.support import factories

NEXT = re.compile(r'<link rel="next" href="([^"]+)"')
PREV = re.compile(r'<link rel="prev" href="([^"]+)"')
VIEW = "sort=-iptm&binding_confidence__gte=0.5&warnings=none"


def _pipeline(app, org, n=40, kind="protein_design"):
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, kind, n, seed=7, artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return link.id, pipeline_id, ids


def _records(client, link_id, pipeline_id) -> list[dict]:
    page = client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results"
                      "?limit=1000").get_json()
    assert not page["has_more"]
    return page["data"]


def _metric(record, key):
    return (record.get("metrics") or {}).get(key)


def _expected_view(records) -> list[str]:
    """The view VIEW, computed from the API's records as a scientist would."""
    kept = [r for r in records if (_metric(r, "binding_confidence") or 0) >= 0.5
            and not r.get("warnings")]
    return [r["id"] for r in sorted(kept, key=lambda r: (-_metric(r, "iptm"), r["id"]))]


def _html(client, url: str, status: int = 200) -> str:
    response = client.get(url.replace("&amp;", "&"))
    assert response.status_code == status, (url, response.status_code)
    return response.get_data(as_text=True)


def _link(pattern: re.Pattern, body: str) -> str | None:
    found = pattern.search(body)
    return found.group(1).replace("&amp;", "&") if found else None


def _trail(body: str) -> list[tuple[str, str | None]]:
    nav = re.search(r'<nav class="breadcrumb".*?</nav>', body, re.S).group(0)
    return [(label, href.replace("&amp;", "&") if href else None) for href, label in
            re.findall(r'<li>(?:<a href="([^"]*)">|<span aria-current="page">)([^<]*)<', nav)]


def _all_results(body: str) -> str:
    return re.search(r'<a class="button" href="([^"]+)">All results</a>', body).group(1) \
        .replace("&amp;", "&")


def test_next_and_previous_walk_the_sorted_filtered_view(app, client, org):
    link_id, pipeline_id, _ids = _pipeline(app, org)
    expected = _expected_view(_records(client, link_id, pipeline_id))
    assert len(expected) >= 4
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    _html(client, f"{base}?{VIEW}")  # the table the visitor came from builds the index
    body = _html(client, f"{base}/results/{expected[0]}?{VIEW}")
    assert _link(PREV, body) is None  # the view's first
    walked = [expected[0]]
    for _step in range(3):
        url = _link(NEXT, body)
        assert url.endswith(f"?{VIEW}")  # the next page stays in the view
        body = _html(client, url)
        walked.append(re.search(r"data-result-id>([^<]+)<", body).group(1))
        assert f'data-view-position="{len(walked)}"' in body
    assert walked == expected[:4]
    assert _link(PREV, body).startswith(f"{base}/results/{expected[2]}?")
    # Back to the view: the trail's pipeline step and "All results", sort and filters kept.
    assert _trail(body)[1][1] == f"{base}?{VIEW}"
    assert _all_results(body) == f"{base}?{VIEW}"


def test_the_3d_page_keeps_the_view_and_names_the_result(app, client, org):
    link_id, pipeline_id, _ids = _pipeline(app, org)
    expected = _expected_view(_records(client, link_id, pipeline_id))
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    _html(client, f"{base}?{VIEW}")
    body = _html(client, f"{base}/results/{expected[1]}/structure?{VIEW}")
    with app.app_context():
        state = indexer.current(pipeline_id)
        label = run_labels(state, domain.KINDS["protein_design"]).label(expected[1])
    assert label.startswith("#") and expected[1].endswith(label.split()[1])
    assert f"<span data-result-label>{label}</span>" in body
    trail = _trail(body)
    assert trail[1][1] == f"{base}?{VIEW}"
    assert trail[2] == (label, f"{base}/results/{expected[1]}?{VIEW}")
    # "Compare with" names the view's neighbours, not the id's.
    compares = re.findall(r'href="([^"]*/compare\?[^"]*)"', body)
    assert [c.replace("&amp;", "&") for c in compares] == [
        f"{base}/compare?a={expected[1]}&b={other}&{VIEW}" for other in expected[0:3:2]]
    # The result page itself shows the label and keeps the full id.
    page = _html(client, f"{base}/results/{expected[1]}?{VIEW}")
    assert f"data-result-label>{label}<" in page and f"data-result-id>{expected[1]}<" in page


@pytest.mark.slow
def test_without_view_args_the_run_is_walked_best_first_once_indexed(app, client, org):
    link_id, pipeline_id, ids = _pipeline(app, org)
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    # No index yet: the API's order (id neighbours), as before.
    body = _html(client, f"{base}/results/{ids[5]}")
    assert _link(NEXT, body) == f"{base}/results/{ids[6]}"
    records = _records(client, link_id, pipeline_id)
    best = [r["id"] for r in sorted(records, key=lambda r: (
        -_metric(r, "binding_confidence"), r["id"]))]
    _html(client, f"{base}?sort=-iptm")  # any exploration builds the index
    body = _html(client, f"{base}/results/{best[0]}")
    assert _link(NEXT, body) == f"{base}/results/{best[1]}"  # no args to carry
    assert _link(PREV, body) is None
    assert "<span class=\"result-label\" data-result-label>#1 " in body
    assert "1 of 40 in the run" in body
    assert _all_results(body) == base


def test_all_results_returns_to_the_table_page_that_holds_the_result(app, client, org):
    n = paging.DEFAULT_PAGE_SIZE + 20
    link_id, pipeline_id, _ids = _pipeline(app, org, n=n)
    records = _records(client, link_id, pipeline_id)
    order = [r["id"] for r in sorted(records, key=lambda r: (_metric(r, "iptm"), r["id"]))]
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    body = _html(client, f"{base}/results/{order[paging.DEFAULT_PAGE_SIZE + 3]}?sort=iptm")
    assert _all_results(body) == f"{base}?sort=iptm&page=2"
    assert _link(NEXT, body).endswith(f"/results/{order[paging.DEFAULT_PAGE_SIZE + 4]}"
                                      "?sort=iptm")


def test_a_result_outside_its_view_walks_the_api_order_and_still_leads_back(app, client,
                                                                            org):
    link_id, pipeline_id, ids = _pipeline(app, org)
    records = {r["id"]: r for r in _records(client, link_id, pipeline_id)}
    outside = next(i for i in ids[1:-1] if _metric(records[i], "binding_confidence") < 0.5)
    at = ids.index(outside)
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    body = _html(client, f"{base}/results/{outside}?{VIEW}")
    assert _link(NEXT, body) == f"{base}/results/{ids[at + 1]}"
    assert _link(PREV, body) == f"{base}/results/{ids[at - 1]}"
    assert _all_results(body) == f"{base}?{VIEW}"
    assert "data-view-position" not in body


@pytest.mark.parametrize(("query", "named"), [
    ("sort=nope", "nope"), ("iptm__gte=high", "iptm__gte"), ("warnings=some", "warnings"),
    ("smarts=C", "smarts"),
])
def test_a_bad_view_arg_is_the_tables_400(app, client, org, query, named):
    link_id, pipeline_id, ids = _pipeline(app, org, n=5)
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    for path in (f"{base}/results/{ids[0]}", f"{base}/results/{ids[0]}/structure"):
        body = _html(client, f"{path}?{query}", status=400)
        assert named in body


def test_table_position_args_are_not_part_of_the_view(app, client, org):
    link_id, pipeline_id, ids = _pipeline(app, org, n=5)
    base = f"/share/{link_id}/pipelines/{pipeline_id}"
    body = _html(client, f"{base}/results/{ids[0]}?sort=iptm&page=zz&limit=0&x=q&y=1")
    assert _all_results(body) == f"{base}?sort=iptm"
