"""The index build's page child: what the build thread reads of a page without parsing it,
and a child that writes nothing of a page that says something else.

The background builds of ``test_index_build`` run through the child on SQLite and
PostgreSQL and check the built index against the API's answers.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import numpy as np
import pytest
import sqlalchemy as sa

from app.platform.timeutil import utcnow
from app.viewer.explore.index import frame, indexer, page_child
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import index_queries, result_index, schema, shared_url
from tests.viewer.explore.index.test_index_build import down_after_two_pages
from tests.viewer.explore.test_explore import _pipeline, api_records, viewer_ids


def _bodies(client, link_id, pipeline_id, limit):
    """Every page body of the pipeline as the API sends it, and one past the end."""
    bodies, after = [], None
    while True:
        query = f"limit={limit}" + (f"&after_id={after}" if after else "")
        body = client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results?"
                          f"{query}").get_data()
        bodies.append(body)
        page = json.loads(body)
        if not page["has_more"]:
            bodies.append(client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}"
                                     f"/results?limit={limit}&after_id={page['last_id']}")
                          .get_data())
            return bodies
        after = page["last_id"]


def _meta(page: dict) -> dict:
    return {"last_id": page.get("last_id"), "has_more": page.get("has_more"),
            "empty": not page.get("data")}


@pytest.mark.dialect  # API pages from stored JSON
def test_the_cursor_read_from_the_ends_of_the_apis_pages_is_the_parsed_one(app, client,
                                                                           org):
    link_id, pipeline_id = _pipeline(app, org, n=120, seed=5)
    bodies = _bodies(client, link_id, pipeline_id, 50)
    assert len(bodies) == 4 and json.loads(bodies[-1])["data"] == []
    for body in bodies:
        assert page_child.envelope(body) == _meta(json.loads(body))
    assert [page_child.envelope(b)["empty"] for b in bodies] == [False, False, False, True]


@pytest.mark.parametrize("page", [
    # The envelope's keys in another order, a record holding the names of its keys.
    {"has_more": True, "last_id": "res_2", "first_id": "res_1",
     "data": [{"id": "res_1", "metrics": {"first_id": 1}}, {"id": "res_2"}]},
    {"data": [{"id": "res_1", "x": {"y": [1], "first_id": "no", "last_id": "no",
                                    "has_more": False}}],
     "first_id": "res_1", "last_id": "res_1", "has_more": True},
    {"data": [], "first_id": None, "last_id": None, "has_more": False},
    {"data": [{"id": "res_1"}], "has_more": False},  # no cursor fields at all
])
@pytest.mark.parametrize("indent", [None, 2])
def test_a_page_of_another_shape_is_read_as_parsed(page, indent):
    body = json.dumps(page, indent=indent).encode()
    assert page_child.envelope(body) == _meta(page)


def _claimed(engine, pipeline_id: str, count: int) -> None:
    with engine.begin() as conn:
        result_index.claim(conn, pipeline_id, kind="protein_design", target_count=count,
                           status="succeeded", owner="me", now=utcnow(),
                           lease=timedelta(seconds=30))


def _body(ids: list[str], more: bool) -> bytes:
    return json.dumps({"data": [{"id": i} for i in ids], "first_id": ids[0],
                       "last_id": ids[-1], "has_more": more}).encode()


@pytest.mark.dialect  # the child's own connection
def test_a_page_that_says_another_cursor_than_was_read_writes_nothing(app):
    engine = viewer_engine(app)
    _claimed(engine, "pl_child", 2)
    body = _body(["res_1", "res_2"], False)
    lease = timedelta(seconds=30)
    for last_id, more in (("res_9", False), ("res_2", True)):  # "more follow": none do
        child = page_child.PageChild(shared_url(engine))
        try:
            child.submit(body, 0, "pl_child", "me", last_id, more, utcnow(), lease)
            with pytest.raises(page_child.PageChildFailed, match="PageMisread"):
                child.result()
        finally:
            child.close()
    with engine.connect() as conn:
        assert result_index.get(conn, "pl_child").indexed == 0
    child = page_child.PageChild(shared_url(engine))
    try:
        child.submit(body, 0, "pl_child", "me", "res_2", False, utcnow(), lease)
        done = child.result()
        assert (done.kept, done.count) == (True, 2)
        child.submit(body, 2, "pl_child", "intruder", "res_2", False, utcnow(), lease)
        assert child.result().kept is False  # not its lease: nothing appended
    finally:
        child.close()
    with engine.connect() as conn:
        state = result_index.get(conn, "pl_child")
        assert (state.indexed, state.last_id) == (2, "res_2")


@pytest.mark.dialect  # the child's own connection
def test_pages_queued_in_the_child_follow_each_other_and_none_after_a_failed_one(app):
    engine = viewer_engine(app)
    _claimed(engine, "pl_queue", 6)
    lease = timedelta(seconds=30)
    child = page_child.PageChild(shared_url(engine))
    try:
        child.submit(_body(["res_1", "res_2"], True), 0, "pl_queue", "me", "res_2", True,
                     utcnow(), lease)
        # Sent before the first page's answer: numbered from where that page ends.
        child.submit(_body(["res_3", "res_4", "res_5"], True), None, "pl_queue", "me",
                     "res_5", True, utcnow(), lease)
        assert child.waiting == 2
        assert [child.result().count, child.result().count] == [2, 3]
        child.submit(_body(["res_6"], True), None, "pl_queue", "me", "res_9", True,
                     utcnow(), lease)  # misread: fails
        child.submit(_body(["res_6"], False), None, "pl_queue", "me", "res_6", False,
                     utcnow(), lease)  # a good page, but after the failed one
        with pytest.raises(page_child.PageChildFailed, match="PageMisread"):
            child.result()
        with pytest.raises(page_child.PageChildFailed, match="AfterFailedPage"):
            child.result()
        child.submit(_body(["res_6"], False), None, "pl_queue", "me", "res_6", False,
                     utcnow(), lease)
        assert child.drain() == [] and child.waiting == 0  # refused, nothing kept
    finally:
        child.close()
    with engine.connect() as conn:
        state = result_index.get(conn, "pl_queue")
        assert (state.indexed, state.last_id) == (5, "res_5")
        rows = schema.indexed_results
        positions = conn.execute(sa.select(rows.c.position).where(
            rows.c.pipeline_id == "pl_queue").order_by(rows.c.position)).scalars().all()
    assert positions == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("url", "shared"), [
    ("sqlite://", False), ("sqlite:///:memory:", False),
    ("sqlite:///file:index?mode=memory&cache=shared&uri=true", False),
    ("sqlite:////tmp/viewer.sqlite", True),
    ("postgresql+psycopg://viewer:secret@db:5432/viewer", True),
])
@pytest.mark.dialect
def test_only_a_store_another_process_can_open_gets_a_child(url, shared):
    found = shared_url(sa.create_engine(url, poolclass=sa.pool.NullPool))
    assert (found is not None) == shared
    if shared:
        assert found == url  # the password included: the child logs in with it


@pytest.mark.dialect
def test_a_background_build_without_a_child_is_built_by_its_thread(app, client, org,
                                                                   monkeypatch):
    def no_processes(_url):
        raise OSError("no more processes")

    monkeypatch.setattr(page_child, "PageChild", no_processes)
    monkeypatch.setattr(indexer, "PAGE_SIZE", 40)
    app.config["EXPLORE_SYNC_LIMIT"] = 0  # in the background, where a child would index
    link_id, pipeline_id = _pipeline(app, org, n=100, seed=7)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    client.get(f"{path}?sort=-iptm")
    deadline = time.monotonic() + 60
    while (answer := client.get(f"{path}/explore.json").get_json())["state"] != "ready":
        assert time.monotonic() < deadline, "the index build did not finish"
        time.sleep(0.1)
    assert answer["indexed"] == 100
    records = api_records(client, link_id, pipeline_id)
    assert viewer_ids(client, path, "sort=id") == sorted(r["id"] for r in records)


@pytest.mark.dialect
def test_the_frame_the_child_built_is_the_one_the_stores_rows_make(app, client, org,
                                                                   monkeypatch):
    monkeypatch.setattr(indexer, "PAGE_SIZE", 40)
    app.config["EXPLORE_SYNC_LIMIT"] = 0  # in the background: the child builds the frame
    link_id, pipeline_id = _pipeline(app, org, n=130, seed=8)
    built = []
    real = page_child.PageChild.frame
    monkeypatch.setattr(page_child.PageChild, "frame",
                        lambda self: built.append(real(self)) or built[-1])
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    client.get(f"{path}?sort=-iptm")
    deadline = time.monotonic() + 60
    while client.get(f"{path}/explore.json").get_json()["state"] != "ready":
        assert time.monotonic() < deadline, "the index build did not finish"
        time.sleep(0.1)
    assert len(built) == 1 and built[0] is not None
    with viewer_engine(app).connect() as conn:
        saved = frame.from_bytes(index_queries.saved_frame(conn, pipeline_id)[1])
        rebuilt = frame.build(index_queries.column_chunks(conn, pipeline_id))
    assert rebuilt.warning_flags.listed  # some results have warnings: their flags are compared
    assert saved.size == rebuilt.size == 130
    mine, theirs = frame.to_arrays(saved), frame.to_arrays(rebuilt)
    assert list(mine) == list(theirs)
    for name, array in theirs.items():
        assert mine[name].dtype == array.dtype, name
        assert np.array_equal(mine[name], array, equal_nan=array.dtype.kind == "f"), name


@pytest.mark.dialect
def test_a_build_resumed_in_the_background_saves_the_frame_of_every_row(app, client, org,
                                                                        monkeypatch):
    monkeypatch.setattr(indexer, "PAGE_SIZE", 40)
    app.config["EXPLORE_SYNC_LIMIT"] = 0
    link_id, pipeline_id = _pipeline(app, org, n=150, seed=9)
    api, real = down_after_two_pages(app, monkeypatch)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    client.get(f"{path}?sort=-iptm")
    deadline = time.monotonic() + 60
    while (state := _state(app, pipeline_id)).failure is None:
        assert time.monotonic() < deadline, "the build did not stop"
        time.sleep(0.05)
    assert state.indexed == 80 and not state.ready  # two pages, then the API was down
    monkeypatch.setattr(api, "results", real)
    client.get(f"{path}?sort=-iptm")  # resumed from the 80th, by a new child
    while not (state := _state(app, pipeline_id)).ready:
        assert time.monotonic() < deadline, "the resumed build did not finish"
        time.sleep(0.05)
    records = api_records(client, link_id, pipeline_id)
    assert viewer_ids(client, path, "sort=id") == sorted(r["id"] for r in records)
    with viewer_engine(app).connect() as conn:
        saved = frame.from_bytes(index_queries.saved_frame(conn, pipeline_id)[1])
    assert [i.decode() for i in saved.ids] == [r["id"] for r in records]


def _state(app, pipeline_id):
    with viewer_engine(app).connect() as conn:
        return result_index.get(conn, pipeline_id)


@pytest.mark.dialect  # the child's own connection
def test_a_record_without_a_readable_id_is_counted_as_read_and_not_written(app):
    engine = viewer_engine(app)
    _claimed(engine, "pl_child", 3)
    body = json.dumps({"data": [{"id": "res_1", "metrics": [1]}, {"id": "res_\u00e92"},
                                {"id": "res_3", "metrics": {"iptm": 10 ** 400}}],
                       "first_id": "res_1", "last_id": "res_3", "has_more": False}).encode()
    child = page_child.PageChild(shared_url(engine))
    try:
        child.submit(body, 0, "pl_child", "me", "res_3", False, utcnow(),
                     timedelta(seconds=30))
        done = child.result()
    finally:
        child.close()
    assert (done.kept, done.count) == (True, 2)
    with engine.connect() as conn:
        assert result_index.get(conn, "pl_child").indexed == 3  # current against a count of 3
        rows = conn.execute(sa.select(schema.indexed_records.c.result_id)).scalars().all()
    assert sorted(rows) == ["res_1", "res_3"]
