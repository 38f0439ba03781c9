"""Usage report: UTC buckets, filters, grouping, range limits and the signed page cursor."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest

from app.platform.db import get_engine
from app.service.usage import UsagePage
from app.store.usage import add_usage_records
from tests.support.admin import assert_envelope, make_key

URL = "/compute/v1/admin/usage"
DAY0 = int(datetime(2026, 4, 1, tzinfo=UTC).timestamp())
H, D = 3600, 86400


def record(org, application, quantity, at, workspace_id=None):
    return {"organization_id": org.organization_id,
            "workspace_id": workspace_id or org.workspace_id,
            "application": application, "quantity": quantity, "recorded_at": at}


def insert(app, rows):
    with get_engine(app).begin() as conn:
        add_usage_records(conn, rows)


def get(client, org, params, status=200):
    response = client.get(f"{URL}?{urlencode(params, doseq=True)}", headers=org.headers)
    if status == 200:
        assert response.status_code == 200, response.json
        UsagePage.model_validate(response.json)
        return response.json
    return assert_envelope(response, status)


def window(start="2026-04-01T00:00:00Z", end="2026-04-03T00:00:00Z", size="HOUR", **more):
    return {"starting_at": start, "ending_at": end, "window_size": size, **more}


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_hour_buckets_are_utc_aligned_sums_without_empty_ones(app, client, org):
    insert(app, [
        record(org, "adme", 1, DAY0),
        record(org, "adme", 2, DAY0 + 59 * 60 + 59),
        record(org, "protein_design", 4, DAY0 + 30),
        record(org, "adme", 8, DAY0 + H),
        record(org, "adme", 16, DAY0 + D + 5 * H + 1),
    ])
    page = get(client, org, window())
    assert page["data"] == [
        {"start_time": "2026-04-01T00:00:00.000Z", "end_time": "2026-04-01T01:00:00.000Z",
         "quantity": 7},
        {"start_time": "2026-04-01T01:00:00.000Z", "end_time": "2026-04-01T02:00:00.000Z",
         "quantity": 8},
        {"start_time": "2026-04-02T05:00:00.000Z", "end_time": "2026-04-02T06:00:00.000Z",
         "quantity": 16},
    ]
    assert page["has_more"] is False and page["next_page"] is None
    assert all(isinstance(b["quantity"], int) for b in page["data"])


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_day_buckets(app, client, org):
    insert(app, [record(org, "adme", 3, DAY0 + 23 * H), record(org, "adme", 4, DAY0 + D),
                 record(org, "adme", 5, DAY0 + 40 * D)])
    page = get(client, org, window(end="2026-06-01T00:00:00Z", size="DAY"))
    assert [(b["start_time"][:10], b["end_time"][:10], b["quantity"]) for b in page["data"]] == [
        ("2026-04-01", "2026-04-02", 3), ("2026-04-02", "2026-04-03", 4),
        ("2026-05-11", "2026-05-12", 5),
    ]


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_range_is_half_open_and_edge_buckets_are_clipped(app, client, org):
    insert(app, [record(org, "adme", 1, DAY0 + 10 * 60 - 1), record(org, "adme", 2, DAY0 + 600),
                 record(org, "adme", 4, DAY0 + 2 * H + 1199),
                 record(org, "adme", 8, DAY0 + 2 * H + 1200)])
    page = get(client, org, window("2026-04-01T00:10:00Z", "2026-04-01T02:20:00Z"))
    assert page["data"] == [
        {"start_time": "2026-04-01T00:10:00.000Z", "end_time": "2026-04-01T01:00:00.000Z",
         "quantity": 2},
        {"start_time": "2026-04-01T02:00:00.000Z", "end_time": "2026-04-01T02:20:00.000Z",
         "quantity": 4},
    ]


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_offsets_are_converted_to_utc(app, client, org):
    insert(app, [record(org, "adme", 5, DAY0 + 3 * H)])
    # 05:00+02:00 is 03:00Z; the bucket is reported in UTC.
    page = get(client, org, window("2026-04-01T05:00:00+02:00", "2026-04-01T06:00:00+02:00"))
    assert page["data"] == [{"start_time": "2026-04-01T03:00:00.000Z",
                             "end_time": "2026-04-01T04:00:00.000Z", "quantity": 5}]
    # A "+" that was not percent-encoded arrives as a space and is still understood.
    response = client.get(f"{URL}?starting_at=2026-04-01T05:00:00 02:00"
                          f"&ending_at=2026-04-01T06:00:00 02:00&window_size=HOUR",
                          headers=org.headers)
    assert response.json["data"] == page["data"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (window(start="2026-04-01T00:00:00"), "starting_at"),
        (window(end="2026-04-02T00:00:00"), "ending_at"),
        (window(start="yesterday"), "starting_at"),
        (window(start="2026-13-01T00:00:00Z"), "starting_at"),
        (window(start="1775001600"), "starting_at"),
        (window(end="2026-04-01T00:00:00Z"), "ending_at"),
        (window(end="2026-03-31T00:00:00Z"), "ending_at"),
        (window(size="WEEK"), "window_size"),
        (window(size="hour"), "window_size"),
        ({"ending_at": "2026-04-02T00:00:00Z", "window_size": "DAY"}, "starting_at"),
        ({"starting_at": "2026-04-01T00:00:00Z", "window_size": "DAY"}, "ending_at"),
        ({"starting_at": "2026-04-01T00:00:00Z", "ending_at": "2026-04-02T00:00:00Z"},
         "window_size"),
        (window(**{"applications[]": "chemistry"}), "applications"),
        (window(**{"group_by[]": "organization"}), "group_by"),
        (window(limit="0"), "limit"),
        (window(limit="1001"), "limit"),
        (window(limit="ten"), "limit"),
        (window(**{"workspace_ids[]": ["ws"] * 101}), "workspace_ids"),
        (window(**{"workspace_ids[]": "w" * 65}), "workspace_ids"),
    ],
)
def test_bad_queries_are_400_naming_the_field(client, org, params, field):
    assert field in get(client, org, params, status=400)["message"]


def test_range_limits_at_and_past_the_edge(client, org):
    get(client, org, window("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "HOUR"))
    body = get(client, org, window("2026-01-01T00:00:00Z", "2026-02-01T00:00:01Z", "HOUR"),
               status=400)
    assert "31 days" in body["message"]
    get(client, org, window("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "DAY"))
    body = get(client, org, window("2026-01-01T00:00:00Z", "2027-01-01T00:00:01Z", "DAY"),
               status=400)
    assert "365 days" in body["message"]
    # A 365-day range is fine by days but not by hours.
    get(client, org, window("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "HOUR"), status=400)


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_filters_take_one_value_or_many(app, client, org):
    other_ws = client.post("/compute/v1/admin/workspaces", json={}, headers=org.headers).json
    insert(app, [record(org, "adme", 1, DAY0), record(org, "protein_design", 2, DAY0),
                 record(org, "small_molecule_design", 4, DAY0),
                 record(org, "adme", 8, DAY0, other_ws["id"])])
    total = lambda params: sum(b["quantity"] for b in get(client, org, params)["data"])  # noqa: E731
    assert total(window()) == 15
    assert total(window(**{"applications[]": "adme"})) == 9
    assert total(window(**{"applications[]": ["adme", "protein_design"]})) == 11
    assert total(window(applications=["protein_design", "small_molecule_design"])) == 6
    assert total(window(**{"workspace_ids[]": other_ws["id"]})) == 8
    assert total(window(**{"workspace_ids[]": [other_ws["id"], org.workspace_id]})) == 15
    assert total(window(**{"workspace_ids[]": other_ws["id"],
                           "applications[]": "protein_design"})) == 0


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_group_by_orders_by_start_time_then_keys(app, client, org):
    second = client.post("/compute/v1/admin/workspaces", json={}, headers=org.headers).json["id"]
    first = org.workspace_id
    insert(app, [record(org, "protein_design", 1, DAY0 + H), record(org, "adme", 2, DAY0 + H),
                 record(org, "adme", 4, DAY0, second), record(org, "adme", 8, DAY0, first),
                 record(org, "protein_design", 16, DAY0, first)])
    by_app = get(client, org, window(**{"group_by[]": "application"}))["data"]
    assert [(b["start_time"][11:13], b["application"], b["quantity"]) for b in by_app] == [
        ("00", "adme", 12), ("00", "protein_design", 16), ("01", "adme", 2),
        ("01", "protein_design", 1)]
    assert all("workspace_id" not in b for b in by_app)
    both = get(client, org, window(**{"group_by[]": ["workspace_id", "application"]}))["data"]
    assert [(b["start_time"][11:13], b["application"], b["workspace_id"], b["quantity"])
            for b in both] == [
        ("00", "adme", first, 8), ("00", "adme", second, 4), ("00", "protein_design", first, 16),
        ("01", "adme", first, 2), ("01", "protein_design", first, 1)]
    by_ws = get(client, org, window(**{"group_by[]": "workspace_id"}))["data"]
    assert [(b["workspace_id"], b["quantity"]) for b in by_ws] == [
        (first, 24), (second, 4), (first, 3)]


def walk(client, org, params):
    """Follow next_page to the end; return all buckets and the cursors seen."""
    items, cursors, page = [], [], get(client, org, params)
    items += page["data"]
    while page["has_more"]:
        cursors.append(page["next_page"])
        page = get(client, org, {**params, "page": page["next_page"]})
        items += page["data"]
    assert page["next_page"] is None
    return items, cursors


def seed_many(app, org):
    rows = [record(org, app_name, i + 1, DAY0 + i * 1800)
            for i in range(150) for app_name in ("adme", "protein_design")]
    insert(app, rows)


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
@pytest.mark.slow
def test_paging_walks_every_bucket_exactly_once(app, client, org):
    seed_many(app, org)
    params = window(end="2026-04-05T00:00:00Z", **{"group_by[]": "application"})
    everything = get(client, org, {**params, "limit": 1000})["data"]
    assert len(everything) == 150
    default = get(client, org, params)
    assert len(default["data"]) == 100 and default["has_more"] is True
    for limit in (1, 7, 100, 149, 150):
        items, _ = walk(client, org, {**params, "limit": limit})
        assert items == everything, limit


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_pages_across_long_empty_stretches_miss_nothing(app, client, org):
    # Each page first aggregates only its next buckets and widens over empty ones: rows
    # far apart (hours 0, 1, 300, 301 and 700 of a 30-day range) still all come, in order.
    hours = (0, 1, 300, 301, 700)
    insert(app, [record(org, "adme", h + 1, DAY0 + h * 3600 + 60) for h in hours])
    params = window(end="2026-05-01T00:00:00Z")
    for limit in (1, 2, 3, 1000):
        items, _ = walk(client, org, {**params, "limit": limit})
        assert [b["quantity"] for b in items] == [h + 1 for h in hours], limit


def test_cursor_is_bound_to_query_and_org(app, client, org, other_org):
    seed_many(app, org)
    params = window(end="2026-04-05T00:00:00Z", limit=5)
    cursor = get(client, org, params)["next_page"]
    # The same query may resume with another page size.
    assert get(client, org, {**params, "page": cursor, "limit": 50})["data"]
    altered = [
        {**params, "window_size": "DAY"},
        {**params, "starting_at": "2026-04-01T00:00:01Z"},
        {**params, "ending_at": "2026-04-04T00:00:00Z"},
        {**params, "applications[]": "adme"},
        {**params, "workspace_ids[]": org.workspace_id},
        {**params, "group_by[]": "application"},
    ]
    for changed in altered:
        body = get(client, org, {**changed, "page": cursor}, status=400)
        assert "page" in body["message"]
    # Another organization cannot replay it (it would read nothing of ours anyway).
    response = client.get(f"{URL}?{urlencode({**params, 'page': cursor})}",
                          headers=other_org.headers)
    assert_envelope(response, 400)
    payload, _, mac = cursor.partition(".")
    for forged in (f"{payload}.{mac[:-2]}AA", f"WzAsMF0.{mac}", "", "....", "x" * 1001,
                   "%%%", cursor + "=", payload):
        if forged == "":
            continue
        get(client, org, {**params, "page": forged}, status=400)


def test_cursor_does_not_survive_a_new_secret_key(app, client, org):
    seed_many(app, org)
    params = window(end="2026-04-05T00:00:00Z", limit=5)
    cursor = get(client, org, params)["next_page"]
    app.config["SECRET_KEY"] = "rotated"
    get(client, org, {**params, "page": cursor}, status=400)


@pytest.mark.dialect  # aggregates: bucket arithmetic, SUM's type, HAVING
def test_usage_is_isolated(app, client, org, other_org):
    insert(app, [record(org, "adme", 5, DAY0), record(other_org, "adme", 7, DAY0)])
    assert [b["quantity"] for b in get(client, org, window())["data"]] == [5]
    assert [b["quantity"] for b in get(client, other_org, window())["data"]] == [7]
    # Naming the other organization's workspace reveals nothing.
    assert get(client, other_org, window(**{"workspace_ids[]": org.workspace_id}))["data"] == []


def test_workspace_key_is_403(app, client, org):
    key = make_key(app, org)
    response = client.get(f"{URL}?{urlencode(window())}", headers={"x-api-key": key})
    assert_envelope(response, 403)
    assert_envelope(client.get(f"{URL}?{urlencode(window())}"), 401)
