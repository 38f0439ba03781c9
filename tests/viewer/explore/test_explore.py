"""Whole-set exploration of a pipeline's results: sort, filters, search, facets, plot data,
access on every request, and the index behind them (shared, refreshed, resumable)."""

from __future__ import annotations

import itertools
import re
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.viewer.explore import answers
from app.viewer.explore.index import indexer
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import result_index
from tests.support import factories

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
# The request's own reference on an error page (app.platform.request_ids) differs on every answer.
REFERENCE = re.compile(rb"<code>[0-9a-f]{16}</code>")


def _pipeline(app, org, kind="protein_design", n=1234, seed=3, **kwargs):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, kind, n, seed=seed,
            artifact_dir=app.config["ARTIFACT_DIR"], **kwargs)
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return link.id, pipeline_id


def api_records(client, link_id, pipeline_id) -> list[dict]:
    """Every result of the pipeline, walked through the API's pages."""
    records, after = [], None
    while True:
        query = "limit=1000" + (f"&after_id={after}" if after else "")
        page = client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results?"
                          f"{query}").get_json()
        records += page["data"]
        if not page["has_more"]:
            return records
        after = page["last_id"]


def viewer_ids(client, path: str, query: str) -> list[str]:
    """Every result id of a sorted/filtered view, page after page."""
    ids, page = [], 1
    while True:
        body = client.get(f"{path}?{query}&limit=250&page={page}").get_data(as_text=True)
        found = ROW_ID.findall(body)
        ids += found
        if 'rel="next"' not in body:
            return ids
        assert f"page={page + 1}" in body
        page += 1


def _key(record, name):
    return (record.get("metrics") or {}).get(name)


@pytest.mark.slow
def test_whole_set_sort_equals_the_order_computed_from_the_api(app, client, org):
    link_id, pipeline_id = _pipeline(app, org)
    records = api_records(client, link_id, pipeline_id)
    # -binding_confidence, then iptm ascending, ties by id: what the visitor asked for.
    expected = sorted(records, key=lambda r: (-_key(r, "binding_confidence"),
                                              _key(r, "iptm"), r["id"]))
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    got = viewer_ids(client, path, "sort=-binding_confidence,iptm")
    assert got == [r["id"] for r in expected]
    assert len(got) == 1234
    # A header's first click sorts best first; the page says it.
    body = client.get(f"{path}?sort=-binding_confidence").get_data(as_text=True)
    assert "1\u2009234</strong> of 1\u2009234 results match" in body
    assert 'aria-sort="descending"' in body


@pytest.mark.dialect  # q= is LIKE: case-sensitive on PostgreSQL only
@pytest.mark.slow
def test_filters_and_search_give_exactly_the_matching_set(app, client, org,
                                                          monkeypatch):
    link_id, pipeline_id = _pipeline(app, org, seed=9)
    records = api_records(client, link_id, pipeline_id)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"

    def wanted(r):
        return (_key(r, "iptm") >= 0.5 and _key(r, "binding_confidence") < 0.8
                and not r.get("warnings"))

    expected = sorted((r for r in records if wanted(r)),
                      key=lambda r: (_key(r, "min_interaction_pae"), r["id"]))
    query = "iptm__gte=0.5&binding_confidence__lt=0.8&warnings=none&sort=min_interaction_pae"
    assert viewer_ids(client, path, query) == [r["id"] for r in expected]
    body = client.get(f"{path}?{query}").get_data(as_text=True)
    assert f">{len(expected):,}</strong> of 1,234 results match".replace(",", "\u2009") in body

    data = client.get(f"{path}/explore.json?{query}&x=iptm&y=binding_confidence").get_json()
    assert data["state"] == "ready" and data["matched"] == len(expected)
    assert len(data["points"]["data"]) == len(expected)
    assert {p["id"] for p in data["points"]["data"]} == {r["id"] for r in expected}
    for histogram in data["histograms"]:
        assert sum(b["count"] for b in histogram["bins"]) + histogram["missing"] \
            == len(expected)
    # Past what a browser draws, the scatter is an even sample along the view's order
    # (its best row first), not the view's top rows.
    monkeypatch.setattr(answers, "POINTS_LIMIT", 40)
    sample = client.get(f"{path}/explore.json?{query}&x=iptm&y=binding_confidence"
                        ).get_json()["points"]
    order = {r["id"]: i for i, r in enumerate(expected)}
    where = [order[p["id"]] for p in sample["data"]]
    assert sample["truncated"] and sample["limit"] == 40 and len(where) == 40
    assert where[0] == 0 and where[-1] == len(expected) - 1 and where == sorted(where)
    assert max(b - a for a, b in itertools.pairwise(where)) <= len(expected) / 39 + 1

    # Facets count the filtered set; warning= narrows to one code.
    unfiltered = client.get(f"{path}/explore.json").get_json()
    with_code = [r for r in records if any(w["code"] == "low_confidence"
                                           for w in r.get("warnings") or [])]
    assert unfiltered["facets"]["warning"] == {"low_confidence": len(with_code)}
    assert unfiltered["facets"]["warnings"]["none"] == len(records) - len(with_code)
    assert sorted(viewer_ids(client, path, "warning=low_confidence")) == \
        sorted(r["id"] for r in with_code)

    # q= is a case-insensitive substring of the id (or sequence, SMILES, external id).
    needle = records[7]["id"][-6:].lower()
    assert viewer_ids(client, path, f"q={needle}") == \
        [r["id"] for r in records if needle in r["id"].lower()]


def test_variant_and_ids_filters_on_a_sequence_redesign(app, client, org):
    link_id, pipeline_id = _pipeline(app, org, "protein_sequence_redesign", n=40)
    records = api_records(client, link_id, pipeline_id)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    generic = [r["id"] for r in records if r.get("type") == "generic"]
    assert viewer_ids(client, path, "variant__eq=generic&sort=id") == sorted(generic)
    some = [records[3]["id"], records[1]["id"]]
    assert viewer_ids(client, path, f"ids={some[0]}%0A{some[1]}&sort=-id") == \
        sorted(some, reverse=True)
    facets = client.get(f"{path}/explore.json").get_json()["facets"]
    assert facets["variant"] == {"binder": 40 - len(generic), "generic": len(generic)}


@pytest.mark.parametrize(("query", "named"), [
    ("sort=bogus", "bogus"), ("iptm__gte=abc", "iptm__gte"), ("foo__gte=1", "foo"),
    ("iptm__between=1", "iptm__between"), ("warnings=maybe", "warnings"),
    ("x=variant", "x"), ("variant__gte=1", "variant"), ("page=0&sort=iptm", "page"),
])
def test_a_bad_query_is_a_400_page_that_names_it(app, client, org, query, named):
    link_id, pipeline_id = _pipeline(app, org, n=3)
    response = client.get(f"/share/{link_id}/pipelines/{pipeline_id}?{query}")
    assert response.status_code == 400 and response.mimetype == "text/html"
    assert named in response.get_data(as_text=True)


def test_an_archived_link_is_a_404_at_once_whatever_the_index_holds(app, client, org):
    link_id, pipeline_id = _pipeline(app, org, n=30)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    assert client.get(f"{path}?sort=-iptm").status_code == 200  # index built
    factories.set_link(app, link_id, archived_at=utcnow())
    unknown = client.get("/share/sl_thisLinkDoesNotExistAtAll0000000/pipelines/"
                         f"{pipeline_id}?sort=-iptm")
    for url in (f"{path}?sort=-iptm", f"{path}/explore.json", f"{path}?iptm__gte=0"):
        gone = client.get(url)
        assert gone.status_code == 404
        assert REFERENCE.sub(b"", gone.data) == REFERENCE.sub(b"", unknown.data)


def test_an_email_link_sorted_view_needs_sign_in(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, n_results=20, artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id], access_mode="email",
                               allowed_emails=["ada@example.com"])
    path = f"/share/{link.id}/pipelines/{pipeline_id}"
    for url in (f"{path}?sort=-iptm", f"{path}/explore.json?sort=-iptm"):
        anonymous = client.get(url)
        assert anonymous.status_code == 302
        assert anonymous.headers["Location"].startswith(f"/share/{link.id}/sign-in")
    with client.session_transaction() as session:
        session["verified_email"] = "ada@example.com"
        session["verified_at"] = int(time.time())
    assert len(viewer_ids(client, path, "sort=-iptm")) == 20


def _state(app, pipeline_id):
    with viewer_engine(app).connect() as conn:
        return result_index.get(conn, pipeline_id)


def test_one_index_for_every_link_refreshed_from_where_it_stopped(app, client, org):
    link_id, pipeline_id = _pipeline(app, org, n=50)
    other = factories.make_link(app, org, pipeline_ids=[pipeline_id]).id
    client.get(f"/share/{link_id}/pipelines/{pipeline_id}?sort=iptm")
    built = _state(app, pipeline_id)
    assert built.ready and built.indexed == 50
    client.get(f"/share/{other}/pipelines/{pipeline_id}?sort=-iptm")
    assert _state(app, pipeline_id).version == built.version  # not read again

    # Five more results arrive: the next visit reads only them (after last_id).
    with get_engine(app).begin() as conn:
        rows = [factories.result_row("protein_design", pipeline_id, 50 + i,
                                     __import__("random").Random(i)) for i in range(5)]
        conn.execute(schema.results.insert(), rows)
        files = factories.shared_result_files(app.config["ARTIFACT_DIR"], pipeline_id)
        conn.execute(schema.artifacts.insert(), factories.shared_result_artifacts(
            files, [row["id"] for row in rows]))
        conn.execute(sa.update(schema.pipelines).where(schema.pipelines.c.id == pipeline_id)
                     .values(result_count=55))
    ids = viewer_ids(client, f"/share/{other}/pipelines/{pipeline_id}", "sort=id")
    assert len(ids) == 55 and {r["id"] for r in rows} <= set(ids)
    assert _state(app, pipeline_id).version == built.version + 1


@pytest.mark.slow
def test_a_large_pipeline_is_indexed_in_the_background_with_progress(app, client, org):
    app.config["EXPLORE_SYNC_LIMIT"] = 0
    link_id, pipeline_id = _pipeline(app, org, n=1500)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    first = client.get(f"{path}?sort=-iptm").get_data(as_text=True)
    assert 'id="index-progress"' in first and "Indexing" in first
    assert '<meta http-equiv="refresh"' in first
    # The progress partial loads its own script; the plots' and shortlist's wait.
    assert first.count("/static/js/index_progress.js?v=") == 1
    assert "js/plots.js" not in first and "js/shortlist.js" not in first
    deadline = time.monotonic() + 60
    while (answer := client.get(f"{path}/explore.json").get_json())["state"] != "ready":
        assert set(answer) == {"state", "indexed", "total"}  # explore_answer.Building
        assert time.monotonic() < deadline, "the index build did not finish"
        time.sleep(0.2)
    assert len(viewer_ids(client, path, "sort=-iptm")) == 1500


def test_a_build_that_fails_midway_resumes_later(app, client, org, monkeypatch):
    monkeypatch.setattr(indexer, "PAGE_SIZE", 100)
    link_id, pipeline_id = _pipeline(app, org, n=450)
    api = app.extensions["compute_api"]
    real, calls = api.results, []

    def flaky(*args, **kwargs):
        calls.append(kwargs.get("after_id"))
        if len(calls) == 3:
            raise ConnectionError("API down")
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "results", flaky)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    body = client.get(f"{path}?sort=iptm").get_data(as_text=True)
    assert "Indexing 200 of 450" in body
    stopped = _state(app, pipeline_id)
    assert stopped.indexed == 200 and stopped.lease_owner is None and not stopped.ready
    ids = viewer_ids(client, path, "sort=iptm")
    assert len(ids) == len(set(ids)) == 450
    assert calls[3] == calls[2]  # resumed at the page that failed, not from the start


def test_two_workers_never_hold_the_same_build_and_idle_indexes_go(app):
    now = utcnow()
    lease = timedelta(seconds=30)
    with viewer_engine(app).begin() as conn:
        first = result_index.claim(conn, "pl_x", kind="protein_design", target_count=5,
                                   status="succeeded", owner="a", now=now, lease=lease)
        second = result_index.claim(conn, "pl_x", kind="protein_design", target_count=5,
                                    status="succeeded", owner="b", now=now, lease=lease)
        assert first is not None and second is None
        assert not result_index.append(conn, "pl_x", owner="b", columns={}, records=[],
                                       last_id="r", now=now, lease=lease)
        later = now + lease + timedelta(seconds=1)  # a's worker died: its lease ran out
        assert result_index.claim(conn, "pl_x", kind="protein_design", target_count=5,
                                  status="succeeded", owner="b", now=later,
                                  lease=lease) is not None
        result_index.finish(conn, "pl_x", "b", later)
        assert result_index.delete_unused(conn, now - timedelta(hours=1)) == 0
        assert result_index.delete_unused(conn, later + timedelta(hours=1)) == 1
        assert result_index.get(conn, "pl_x") is None


def test_exports_of_a_sorted_filtered_view_hold_exactly_its_rows_in_order(app, client, org):
    link_id, pipeline_id = _pipeline(app, org, n=450, seed=5)
    records = api_records(client, link_id, pipeline_id)
    wanted = sorted((r for r in records if _key(r, "iptm") >= 0.3),
                    key=lambda r: (-_key(r, "binding_confidence"), r["id"]))
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    query = "sort=-binding_confidence&iptm__gte=0.3"
    as_json = client.get(f"{path}/export.json?{query}")
    assert as_json.status_code == 200
    assert "-selection-" in as_json.headers["Content-Disposition"]
    # Records come from the API (fresh artifact URLs), in the view's order.
    exported = as_json.get_json()["results"]
    assert exported == [
        {"rank": i + 1, "label": exported[i]["label"], **r,
         "artifacts": exported[i]["artifacts"]} for i, r in enumerate(wanted)]
    csv_rows = client.get(f"{path}/export.csv?{query}").get_data(as_text=True).splitlines()
    assert [line.split(",")[2] for line in csv_rows[1:]] == [r["id"] for r in wanted]
    sorted_only = client.get(f"{path}/export.csv?sort=iptm").get_data(as_text=True)
    assert len(sorted_only.splitlines()) == 451


def test_an_export_waits_for_an_index_being_built(app, client, org, monkeypatch):
    app.config["EXPLORE_SYNC_LIMIT"] = 0
    monkeypatch.setattr(indexer.Build, "run_in_background", lambda self: None)  # never runs
    link_id, pipeline_id = _pipeline(app, org, n=20)
    busy = client.get(f"/share/{link_id}/pipelines/{pipeline_id}/export.csv?sort=iptm")
    assert busy.status_code == 503 and busy.headers["Retry-After"]
    assert "0 of 20 are indexed" in busy.get_data(as_text=True)


def test_while_a_refresh_runs_the_last_complete_index_answers(app, client, org, monkeypatch):
    link_id, pipeline_id = _pipeline(app, org, n=50)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    before = viewer_ids(client, path, "sort=-iptm")
    with get_engine(app).begin() as conn:
        conn.execute(schema.results.insert(), [factories.result_row(
            "protein_design", pipeline_id, 50, __import__("random").Random(1))])
        conn.execute(sa.update(schema.pipelines).where(schema.pipelines.c.id == pipeline_id)
                     .values(result_count=51))
    app.config["EXPLORE_SYNC_LIMIT"] = 0
    monkeypatch.setattr(indexer.Build, "run_in_background", lambda self: None)  # stalls
    assert viewer_ids(client, path, "sort=-iptm") == before
    assert _state(app, pipeline_id).lease_owner is not None  # the refresh holds the lease
