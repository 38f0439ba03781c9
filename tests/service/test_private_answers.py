"""Small holes a probe found (issue 7, fault 8): every API answer private and without a
Referer, zone ids refused in ``allowed_ips``, and page sizes only in 0-9 digits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.platform.db import get_engine
from tests.support import factories

PRIVATE = {"Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer"}


def _assert_private(response) -> None:
    for name, value in PRIVATE.items():
        assert response.headers.get(name) == value, (response.status_code, name)


def _expiry() -> str:
    return (datetime.now(UTC) + timedelta(days=3)).isoformat()


def test_errors_are_private_and_send_no_referer(client, org):
    _assert_private(client.get("/compute/v1/admin/workspaces"))  # 401, no key
    _assert_private(client.get("/compute/v1/share/sl_" + "x" * 32))  # 404
    _assert_private(client.get("/compute/v1/no-such-endpoint"))  # 404, no route
    _assert_private(client.get("/compute/v1/admin/workspaces?limit=0", headers=org.headers))


def test_answers_that_carry_a_key_or_a_share_url_are_private(app, client, org):
    created = client.post("/compute/v1/admin/api-keys", json={"name": "ci"}, headers=org.headers)
    assert created.status_code == 200 and created.json["key"]
    _assert_private(created)
    with get_engine(app).begin() as conn:
        pipeline, _ids = factories.insert_pipeline(conn, org.workspace_id, n_results=1,
                                                   artifact_dir=app.config["ARTIFACT_DIR"])
    link = client.post("/compute/v1/share-links", headers=org.headers,
                       json={"expires_at": _expiry(), "pipeline_ids": [pipeline]})
    assert link.status_code == 200 and link.json["url"].endswith(link.json["id"])
    _assert_private(link)
    _assert_private(client.get(f"/compute/v1/share-links/{link.json['id']}",
                               headers=org.headers))


@pytest.mark.parametrize("address", ["fe80::1%eth0", "fe80::1%1", "2001:db8::1%25eth0"])
def test_an_ipv6_zone_id_is_not_an_allowed_address(client, org, address):
    response = client.post("/compute/v1/admin/api-keys", headers=org.headers,
                           json={"name": "zoned", "allowed_ips": [address]})
    body = factories.assert_envelope(response, 400)
    assert "allowed_ips" in body["message"]


@pytest.mark.parametrize("limit", ["\uff11\uff10", "\u0661\u0660", "\uff15"])
def test_page_sizes_are_written_with_ascii_digits(app, client, org, limit):
    # The API has always refused these; the viewer's own parser read them as numbers.
    with get_engine(app).begin() as conn:
        pipeline, _ids = factories.insert_pipeline(conn, org.workspace_id, n_results=2,
                                                   artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline])
    page = client.get(f"/share/{link.id}/pipelines/{pipeline}", query_string={"limit": limit})
    assert page.status_code == 400
    assert "page size" in page.get_data(as_text=True)
    api = client.get("/compute/v1/admin/workspaces", query_string={"limit": limit},
                     headers=org.headers)
    assert factories.assert_envelope(api, 400)["message"].startswith("limit")
    plain = client.get(f"/share/{link.id}/pipelines/{pipeline}", query_string={"limit": "1"})
    assert plain.status_code == 200
