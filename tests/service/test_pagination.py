"""Results through a share link: limits, cursors, the ids filter, and a paging property test."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain import MAX_ID_LENGTH
from app.platform.db import get_engine
from app.store import schema
from tests.support import factories
from tests.support.apps import make_org, make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.factories import assert_envelope
from tests.support.sdk_clients import sdk_client


@pytest.fixture(scope="module")
def paged_app(tmp_path_factory):
    """An app over a protein-design pipeline with 1,001 results (archive + structure on the
    first 60) and a link to it: (app, {"url", "ids"}). The tests that take it only read."""
    tmp = tmp_path_factory.mktemp("pagination")
    url, drop = migrated_database(tmp)
    application = make_test_app(url, tmp)
    org = make_org(application)
    with get_engine(application).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id, n_results=1001)
        factories.add_result_artifacts(conn, application.config["ARTIFACT_DIR"], ids[:60])
    link = factories.make_link(application, org, pipeline_ids=[pipeline_id])
    yield application, {"url": f"/compute/v1/share/{link.id}/pipelines/{pipeline_id}/results",
                        "ids": ids}
    dispose_engines(application)
    drop()


@pytest.fixture
def pipeline(paged_app):
    """The 1,001 results' page URL and ids, in id order."""
    return paged_app[1]


@pytest.fixture
def client(paged_app):
    """A test client of the app over ``pipeline``."""
    return paged_app[0].test_client()


@pytest.fixture
def service_app(paged_app):
    """The service half of the app over ``pipeline``."""
    return paged_app[0].extensions["service_app"]


def get_page(client, url: str, **params):
    """GET one page with ``params`` as the query string."""
    return client.get(url, query_string={k: v for k, v in params.items() if v is not None})


def test_default_limit_is_100(client, pipeline):
    page = get_page(client, pipeline["url"]).get_json()
    assert [r["id"] for r in page["data"]] == pipeline["ids"][:100]
    assert page["has_more"] is True
    assert page["first_id"] == pipeline["ids"][0]
    assert page["last_id"] == pipeline["ids"][99]


@pytest.mark.parametrize("limit, status", [(1, 200), (1000, 200), (1001, 400), (0, 400),
                                           (-1, 400), ("ten", 400), ("1.5", 400), ("", 400)])
def test_limit_bounds(client, pipeline, limit, status):
    response = get_page(client, pipeline["url"], limit=limit)
    assert response.status_code == status
    if status == 200:
        assert len(response.get_json()["data"]) == limit
        assert response.get_json()["has_more"] is True
    else:
        assert "limit" in assert_envelope(response, 400)["message"]


@pytest.mark.dialect  # a page of 1,000 rows of stored JSON text
def test_last_page_of_1000(client, pipeline):
    ids = pipeline["ids"]
    page = get_page(client, pipeline["url"], limit=1000, after_id=ids[0]).get_json()
    assert len(page["data"]) == 1000 and page["has_more"] is False


def test_after_and_before_together_is_400(client, pipeline):
    ids = pipeline["ids"]
    response = get_page(client, pipeline["url"], after_id=ids[1], before_id=ids[5])
    assert "after_id and before_id" in assert_envelope(response, 400)["message"]


@pytest.mark.parametrize("name", ["after_id", "before_id"])
def test_a_cursor_longer_than_any_id_is_400(client, pipeline, name):
    response = get_page(client, pipeline["url"], **{name: "x" * (MAX_ID_LENGTH + 1)})
    assert name in assert_envelope(response, 400)["message"]
    response = get_page(client, pipeline["url"], **{name: "res_\x001"})
    assert "NUL" in assert_envelope(response, 400)["message"]


@pytest.mark.parametrize("cursor", ["has space", "x" * MAX_ID_LENGTH, "res_1;drop", "ré",
                                    "a,b", "res_02.x", "\u4e2d"])
@pytest.mark.parametrize("name", ["after_id", "before_id"])
def test_any_id_the_api_may_serve_is_a_cursor(client, pipeline, name, cursor):
    ids = pipeline["ids"]
    page = get_page(client, pipeline["url"], limit=2, **{name: cursor}).get_json()
    expected = ([i for i in ids if i > cursor][:2] if name == "after_id"
                else [i for i in ids if i < cursor][-2:])
    assert [r["id"] for r in page["data"]] == expected


# Ids a record may be stored under without the API having made them (written into the
# store by other means), each a page boundary for a client paging two at a time.
ODD_IDS = ["res_\u00e901", "res_02.x", "res_03 with space", "res_04,comma", "res_\u4e2d05",
           "x" * MAX_ID_LENGTH]


@pytest.mark.dialect  # keyset pagination over ids of any characters, in the database
def test_an_sdk_client_pages_past_every_id_the_api_serves(app, org):
    with get_engine(app).begin() as conn:
        pipeline_id, made = factories.insert_pipeline(conn, org.workspace_id, n_results=5)
        rows = [{**factories.result_row("protein_design", pipeline_id, n, random.Random(n)),
                 "id": odd} for n, odd in enumerate(ODD_IDS)]
        conn.execute(schema.results.insert(), rows)
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    everything = sorted([*made, *ODD_IDS])
    with sdk_client(app, org.admin_key) as sdk:
        first = sdk.share_links.list_pipeline_results(pipeline_id, id=link.id, limit=2)
        forward = [record.id for record in first]  # the SDK's pager: after_id=last_id
        backward = []
        page = sdk.share_links.list_pipeline_results(pipeline_id, id=link.id, limit=2,
                                                     before_id="\U0010ffff")
        while True:
            backward = [record.id for record in page.data] + backward
            if not page.has_next_page():
                break
            page = page.get_next_page()  # before_id=first_id
    assert forward == everything and backward == everything


@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
def test_a_cursor_that_is_no_result_still_seeks(client, pipeline):
    ids = pipeline["ids"]
    # Any well-formed id is a position in id order, even one that is not a result.
    page = get_page(client, pipeline["url"], after_id="res_0", limit=3).get_json()
    assert [r["id"] for r in page["data"]] == ids[:3]
    page = get_page(client, pipeline["url"], before_id="res_0").get_json()
    assert page == {"data": [], "first_id": None, "last_id": None, "has_more": False}


@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
def test_walks_forward_and_backward(client, pipeline):
    ids = pipeline["ids"]
    page = get_page(client, pipeline["url"], before_id=ids[10], limit=4).get_json()
    assert [r["id"] for r in page["data"]] == ids[6:10]
    assert page["has_more"] is True
    page = get_page(client, pipeline["url"], before_id=ids[3], limit=4).get_json()
    assert [r["id"] for r in page["data"]] == ids[:3]
    assert page["has_more"] is False
    page = get_page(client, pipeline["url"], after_id=ids[-3], limit=4).get_json()
    assert [r["id"] for r in page["data"]] == ids[-2:]
    assert page["has_more"] is False


@pytest.mark.parametrize("count, status", [(1, 200), (200, 200), (201, 400)])
def test_ids_filter_limit(client, pipeline, count, status):
    wanted = pipeline["ids"][::4][:count]
    response = get_page(client, pipeline["url"], ids=",".join(wanted), limit=1000)
    assert response.status_code == status
    if status == 200:
        assert [r["id"] for r in response.get_json()["data"]] == wanted
    else:
        assert "ids" in assert_envelope(response, 400)["message"]


@pytest.mark.parametrize("ids", ["", ",", "a,,b", "res_x,", "bad id", "x" * 65, "ré"])
def test_malformed_ids_are_400(client, pipeline, ids):
    response = get_page(client, pipeline["url"], ids=ids)
    assert "ids" in assert_envelope(response, 400)["message"]


@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
def test_ids_filter_applies_before_pagination(client, pipeline):
    ids = pipeline["ids"]
    wanted = ids[::7][:40]
    query = ",".join(reversed([*wanted, "res_01ZZZZZZZZZZZZZZZZZZZZZZZZ", wanted[0]]))
    seen, after = [], None
    while True:
        page = get_page(client, pipeline["url"], ids=query, limit=6, after_id=after).get_json()
        assert 1 <= len(page["data"]) <= 6
        seen += [r["id"] for r in page["data"]]
        after = page["last_id"]
        if not page["has_more"]:
            break
    assert seen == wanted
    window = get_page(client, pipeline["url"], ids=query, before_id=wanted[10],
                      limit=3).get_json()
    assert [r["id"] for r in window["data"]] == wanted[7:10]


def test_one_artifact_query_per_page(service_app, client, pipeline):
    """The statements a page runs do not grow with its size (no N+1)."""
    engine = get_engine(service_app)
    counts = []
    for limit in (2, 50):
        statements = []

        def count(conn, cursor, statement, *args, _s=statements):
            _s.append(statement)

        sa.event.listen(engine, "before_cursor_execute", count)
        try:
            response = get_page(client, pipeline["url"], limit=limit)
        finally:
            sa.event.remove(engine, "before_cursor_execute", count)
        assert response.status_code == 200
        assert all("archive" in r["artifacts"] for r in response.get_json()["data"])
        counts.append(len([s for s in statements if "artifacts" in s]))
        counts.append(len(statements))
    assert counts[0] == counts[2] == 1
    assert counts[1] == counts[3]


# The property: any sequence of walks returns each matching result exactly once, in order.

def model_page(matching: list[str], limit: int, after: str | None, before: str | None):
    """Return what a page must hold, computed from the sorted list of matching ids."""
    if before is not None:
        items = [i for i in matching if i < before]
        return items[-limit:], len(items) > limit
    items = [i for i in matching if after is None or i > after]
    return items[:limit], len(items) > limit


@pytest.fixture
def small_pipeline(app, org):
    """A pipeline with 30 results in the test's own app, for the property test; its
    client."""
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id, n_results=30)
        other, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=5)
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id, other])
    return {"url": f"/compute/v1/share/{link.id}/pipelines/{pipeline_id}/results", "ids": ids,
            "client": app.test_client()}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
@pytest.mark.slow
def test_paging_property(small_pipeline, data):
    client = small_pipeline["client"]
    ids = small_pipeline["ids"]
    url = small_pipeline["url"]
    # Cursors: existing ids, or positions between/outside them.
    cursor = st.one_of(st.sampled_from(ids), st.sampled_from(ids).map(lambda i: i[:-1]),
                       st.just("res_0"), st.just("res_Z"))
    use_filter = data.draw(st.booleans(), label="filter")
    subset = data.draw(st.lists(st.sampled_from(ids), max_size=25), label="ids") \
        if use_filter else None
    extra = data.draw(st.lists(cursor.filter(lambda c: c not in ids), max_size=3),
                      label="missing ids") if use_filter else []
    matching = sorted(set(subset)) if use_filter else ids
    ids_param = ",".join(subset + extra) if use_filter and (subset or extra) else None
    if use_filter and ids_param is None:
        matching = ids  # An empty draw means no filter at all.

    # Random single pages match the model exactly.
    for _ in range(data.draw(st.integers(1, 4), label="pages")):
        limit = data.draw(st.integers(1, 8), label="limit")
        direction = data.draw(st.sampled_from(["first", "after", "before"]), label="dir")
        after = data.draw(cursor) if direction == "after" else None
        before = data.draw(cursor) if direction == "before" else None
        page = get_page(client, url, limit=limit, after_id=after, before_id=before,
                        ids=ids_param).get_json()
        expected, has_more = model_page(matching, limit, after, before)
        assert [r["id"] for r in page["data"]] == expected
        assert page["has_more"] is has_more
        assert page["first_id"] == (expected[0] if expected else None)
        assert page["last_id"] == (expected[-1] if expected else None)

    # Full walks in either direction see every matching result once, in order.
    limit = data.draw(st.integers(1, 8), label="walk limit")
    forward, after = [], None
    while True:
        page = get_page(client, url, limit=limit, after_id=after, ids=ids_param).get_json()
        forward += [r["id"] for r in page["data"]]
        if not page["has_more"]:
            break
        after = page["last_id"]
    assert forward == matching
    backward, before = [], "res_Z"
    while True:
        page = get_page(client, url, limit=limit, before_id=before, ids=ids_param).get_json()
        backward = [r["id"] for r in page["data"]] + backward
        if not page["has_more"]:
            break
        before = page["first_id"]
    assert backward == matching
