"""API-key administration: create (every rule and limit), list with filter, revoke."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.api_keys import hash_key
from tests.support.admin import assert_envelope, make_key

BASE = "/compute/v1/admin/api-keys"
WORKSPACES = "/compute/v1/admin/workspaces"
PROBE = WORKSPACES  # a workspace key that authenticates gets 403 here, a dead one 401


def create(client, org, **body):
    body.setdefault("name", "CI key")
    response = client.post(BASE, json=body, headers=org.headers)
    assert response.status_code == 200, response.json
    from app.service.api_keys import ApiKeyCreated

    ApiKeyCreated.model_validate(response.json)
    return response.json


def parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).replace(tzinfo=None)


def test_create_defaults(app, client, org):
    made = create(client, org)
    details = made["key_details"]
    assert made["key"].startswith("bz_live_")
    assert details["key_prefix"] == made["key"][:12]
    assert len(details["key_prefix"]) == 12
    assert details["key_type"] == "workspace"
    assert details["workspace_id"] == org.workspace_id
    assert details["livemode"] is True
    assert details["is_active"] is True
    assert details["allowed_ips"] == []
    assert details["expires_at"] is None
    assert details["last_used_at"] is None
    assert details["name"] == "CI key"
    # The key authenticates, and only its hash is stored.
    assert_envelope(client.get(PROBE, headers={"x-api-key": made["key"]}), 403)
    with get_engine(app).connect() as conn:
        stored = conn.execute(sa.select(schema.api_keys).where(
            schema.api_keys.c.id == details["id"])).one()
    assert stored.key_hash == hash_key(made["key"])
    assert made["key"] not in str(tuple(stored))


@pytest.mark.dialect  # expiry stored and read back
def test_create_test_mode_and_expiry(client, org):
    made = create(client, org, mode="test", expires_in_days=30)
    details = made["key_details"]
    assert made["key"].startswith("bz_test_")
    assert details["livemode"] is False
    expires = parse(details["expires_at"])
    assert abs(expires - (utcnow() + timedelta(days=30))) < timedelta(minutes=1)
    assert create(client, org, expires_in_days=1)["key_details"]["expires_at"]
    assert create(client, org, expires_in_days=3650)["key_details"]["expires_at"]


def test_expires_in_days_limits(client, org):
    for bad in (0, -1, 3651, 1.5, "30", True):
        body = assert_envelope(client.post(BASE, json={"name": "k", "expires_in_days": bad},
                                           headers=org.headers), 400)
        assert "expires_in_days" in body["message"], bad


def test_allowed_ips_are_validated_and_normalised(client, org):
    made = create(client, org, allowed_ips=[
        "10.0.0.1", " 192.168.1.20 ", "2001:DB8:0:0:0:0:0:1", "::ffff:10.0.0.2", "10.0.0.1",
    ])
    assert made["key_details"]["allowed_ips"] == [
        "10.0.0.1", "192.168.1.20", "2001:db8::1", "10.0.0.2",
    ]
    for bad in (["10.0.0.0/8"], ["300.1.1.1"], ["localhost"], [""], [5], "10.0.0.1", ["1.2.3"]):
        body = assert_envelope(client.post(BASE, json={"name": "k", "allowed_ips": bad},
                                           headers=org.headers), 400)
        assert "allowed_ips" in body["message"], bad


def test_allowed_ips_at_most_100(client, org):
    hundred = [f"10.0.{i // 250}.{i % 250}" for i in range(100)]
    assert len(create(client, org, allowed_ips=hundred)["key_details"]["allowed_ips"]) == 100
    body = assert_envelope(client.post(BASE, json={"name": "k", "allowed_ips": [
        *hundred, "10.9.9.9"]}, headers=org.headers), 400)
    assert "allowed_ips" in body["message"]


def test_name_rules(client, org):
    for body in ({}, {"name": ""}, {"name": "  "}, {"name": "x" * 201}, {"name": 3},
                 {"name": None}):
        message = assert_envelope(client.post(BASE, json=body, headers=org.headers), 400)[
            "message"]
        assert "name" in message
    assert create(client, org, name="y" * 200)["key_details"]["name"] == "y" * 200
    assert create(client, org, name=" spaced ")["key_details"]["name"] == "spaced"


def test_mode_and_unknown_fields(client, org):
    for body in ({"name": "k", "mode": "prod"}, {"name": "k", "key_type": "admin"},
                 {"name": "k", "livemode": False}):
        assert_envelope(client.post(BASE, json=body, headers=org.headers), 400)


def test_workspace_must_be_an_unarchived_workspace_of_the_org(client, org, other_org):
    workspace = client.post(WORKSPACES, json={"name": "W"}, headers=org.headers).json
    made = create(client, org, workspace_id=workspace["id"])
    assert made["key_details"]["workspace_id"] == workspace["id"]
    theirs = client.post(WORKSPACES, json={}, headers=other_org.headers).json
    for workspace_id in (theirs["id"], other_org.workspace_id, "ws_nope", ""):
        body = assert_envelope(client.post(BASE, json={"name": "k", "workspace_id": workspace_id},
                                           headers=org.headers), 400)
        assert "workspace_id" in body["message"]
    client.post(f"{WORKSPACES}/{workspace['id']}/archive", headers=org.headers)
    body = assert_envelope(client.post(BASE, json={"name": "k", "workspace_id": workspace["id"]},
                                       headers=org.headers), 400)
    assert "archived" in body["message"]


@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
def test_list_filters_and_pages(client, org, other_org):
    workspace = client.post(WORKSPACES, json={}, headers=org.headers).json
    in_default = [create(client, org)["key_details"]["id"] for _ in range(3)]
    in_other = [create(client, org, workspace_id=workspace["id"])["key_details"]["id"]
                for _ in range(2)]
    create(client, other_org)
    everything = client.get(f"{BASE}?limit=100", headers=org.headers).json
    ids = [k["id"] for k in everything["data"]]
    assert ids == sorted(ids)
    assert len(ids) == 6  # the admin key + 5
    assert everything["data"][0]["key_type"] == "admin"
    assert everything["data"][0]["workspace_id"] is None
    for item in everything["data"]:
        assert "key" not in item and "key_hash" not in item
    filtered = client.get(f"{BASE}?workspace_id={workspace['id']}", headers=org.headers).json
    assert [k["id"] for k in filtered["data"]] == in_other
    default = client.get(f"{BASE}?workspace_id={org.workspace_id}", headers=org.headers).json
    assert [k["id"] for k in default["data"]] == in_default
    # Another organization's workspace filters to nothing.
    assert client.get(f"{BASE}?workspace_id={other_org.workspace_id}",
                      headers=org.headers).json["data"] == []
    first = client.get(f"{BASE}?limit=2", headers=org.headers).json
    assert first["has_more"] is True and len(first["data"]) == 2
    second = client.get(f"{BASE}?limit=10&after_id={first['last_id']}", headers=org.headers).json
    assert [k["id"] for k in first["data"] + second["data"]] == ids
    for bad in ("limit=1001", "limit=0", "after_id=x&before_id=y", "workspace_id=a%20b"):
        assert_envelope(client.get(f"{BASE}?{bad}", headers=org.headers), 400)


def test_revoke_is_idempotent_and_stops_the_key(client, org):
    made = create(client, org)
    key_id = made["key_details"]["id"]
    revoked = client.post(f"{BASE}/{key_id}/revoke", headers=org.headers).json
    assert revoked["is_active"] is False
    assert revoked["id"] == key_id
    assert "key" not in revoked
    assert_envelope(client.get(PROBE, headers={"x-api-key": made["key"]}), 401)
    again = client.post(f"{BASE}/{key_id}/revoke", headers=org.headers)
    assert again.status_code == 200 and again.json == revoked


def test_revoke_is_isolated(client, org, other_org):
    made = create(client, org)
    key_id = made["key_details"]["id"]
    assert_envelope(client.post(f"{BASE}/{key_id}/revoke", headers=other_org.headers), 404)
    assert_envelope(client.post(f"{BASE}/key_nope/revoke", headers=org.headers), 404)
    assert_envelope(client.get(PROBE, headers={"x-api-key": made["key"]}), 403)


def test_last_used_at_is_reported(client, org):
    made = create(client, org)
    client.get(PROBE, headers={"x-api-key": made["key"]})
    listed = client.get(f"{BASE}?workspace_id={org.workspace_id}", headers=org.headers).json
    assert listed["data"][0]["last_used_at"] is not None


def test_workspace_key_is_403_on_api_key_endpoints(app, client, org):
    key = {"x-api-key": make_key(app, org)}
    made = create(client, org)
    for response in (
        client.post(BASE, json={"name": "sneaky"}, headers=key),
        client.get(BASE, headers=key),
        client.post(f"{BASE}/{made['key_details']['id']}/revoke", headers=key),
    ):
        assert_envelope(response, 403)
    assert client.get(f"{BASE}?limit=100", headers=org.headers).json["data"][-1][
        "is_active"] is True


@pytest.mark.dialect  # the organization's row lock
def test_last_active_admin_key_cannot_be_revoked(app, client, org):
    admin_id = client.get(BASE, headers=org.headers).json["data"][0]["id"]
    body = assert_envelope(client.post(f"{BASE}/{admin_id}/revoke", headers=org.headers), 409)
    assert "admin key" in body["message"]
    # With a second admin key, the first can go, and then the second is the last one.
    second = make_key(app, org, key_type="admin")
    assert client.post(f"{BASE}/{admin_id}/revoke", headers=org.headers).json[
        "is_active"] is False
    assert_envelope(client.get(BASE, headers=org.headers), 401)
    listed = client.get(BASE, headers={"x-api-key": second}).json["data"]
    second_id = next(k["id"] for k in listed if k["key_type"] == "admin" and k["is_active"])
    assert_envelope(client.post(f"{BASE}/{second_id}/revoke", headers={"x-api-key": second}),
                    409)
    # Revoking the already revoked first key stays harmless.
    assert client.post(f"{BASE}/{admin_id}/revoke", headers={"x-api-key": second}
                       ).status_code == 200
