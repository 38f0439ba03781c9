"""Workspace administration: create, list, retrieve, update, archive, and their limits."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.service.workspaces import WorkspaceOut, WorkspacePage
from app.store import schema
from tests.support.admin import assert_envelope, make_key

BASE = "/compute/v1/admin/workspaces"


def create(client, org, **body):
    response = client.post(BASE, json=body, headers=org.headers)
    assert response.status_code == 200, response.json
    WorkspaceOut.model_validate(response.json)
    return response.json


def test_create_with_defaults(client, org):
    workspace = create(client, org)
    assert workspace["name"] == "Workspace"
    assert workspace["data_retention"] == {"unit": "days", "value": 7}
    assert workspace["is_default"] is False
    assert workspace["archived_at"] is None
    assert workspace["created_at"] == workspace["updated_at"]
    assert workspace["id"].startswith("ws_")


def test_create_with_name_and_retention(client, org):
    workspace = create(client, org, name="  Antibodies  ",
                       data_retention={"unit": "hours", "value": 12})
    assert workspace["name"] == "Antibodies"
    assert workspace["data_retention"] == {"unit": "hours", "value": 12}


def test_retention_edges_are_accepted(client, org):
    assert create(client, org, data_retention={"unit": "days", "value": 14})["data_retention"][
        "value"] == 14
    assert create(client, org, data_retention={"unit": "hours", "value": 336})[
        "data_retention"]["value"] == 336
    assert create(client, org, data_retention={"unit": "hours", "value": 1})[
        "data_retention"]["value"] == 1


def test_bad_retention_is_400_naming_the_field(client, org):
    for retention in (
        {"unit": "days", "value": 15},
        {"unit": "hours", "value": 337},
        {"unit": "days", "value": 0},
        {"unit": "days", "value": -1},
        {"unit": "days", "value": 1.5},
        {"unit": "days", "value": 7.0},
        {"unit": "days", "value": "7"},
        {"unit": "days", "value": True},
        {"unit": "weeks", "value": 1},
        {"unit": "days"},
        {"value": 3},
        {"unit": "days", "value": 3, "extra": 1},
        "7 days",
    ):
        body = assert_envelope(
            client.post(BASE, json={"data_retention": retention}, headers=org.headers), 400)
        assert "data_retention" in body["message"], (retention, body)


def test_bad_names_are_400(client, org):
    for name in ("", "   ", "x" * 201, 5, ["a"]):
        body = assert_envelope(client.post(BASE, json={"name": name}, headers=org.headers), 400)
        assert "name" in body["message"]
    assert create(client, org, name="x" * 200)["name"] == "x" * 200


def test_null_fields_on_create_mean_the_defaults(client, org):
    made = client.post(BASE, json={"name": None, "data_retention": None}, headers=org.headers)
    assert made.status_code == 200
    assert made.json["name"] == "Workspace"
    assert made.json["data_retention"] == {"unit": "days", "value": 7}


def test_unknown_field_is_400(client, org):
    body = assert_envelope(client.post(BASE, json={"nme": "typo"}, headers=org.headers), 400)
    assert "nme" in body["message"]


@pytest.mark.dialect  # keyset pagination: id order and comparisons in the database
def test_list_pages_by_id_with_default_20(client, org):
    made = [create(client, org, name=f"w{i}")["id"] for i in range(22)]
    everything = [org.workspace_id, *made]
    page = client.get(BASE, headers=org.headers).json
    WorkspacePage.model_validate(page)
    assert [w["id"] for w in page["data"]] == everything[:20]
    assert page["has_more"] is True
    assert page["first_id"] == everything[0] and page["last_id"] == everything[19]
    rest = client.get(f"{BASE}?after_id={page['last_id']}", headers=org.headers).json
    assert [w["id"] for w in rest["data"]] == everything[20:]
    assert rest["has_more"] is False
    back = client.get(f"{BASE}?before_id={everything[5]}&limit=3", headers=org.headers).json
    assert [w["id"] for w in back["data"]] == everything[2:5]
    assert back["has_more"] is True


def test_list_limit_edges(client, org):
    assert client.get(f"{BASE}?limit=1000", headers=org.headers).status_code == 200
    assert client.get(f"{BASE}?limit=1", headers=org.headers).json["has_more"] is False
    for bad in ("1001", "0", "-1", "abc", "1.5"):
        body = assert_envelope(client.get(f"{BASE}?limit={bad}", headers=org.headers), 400)
        assert "limit" in body["message"]
    assert_envelope(client.get(f"{BASE}?after_id=a&before_id=b", headers=org.headers), 400)


def test_retrieve_and_404s(client, org, other_org):
    workspace = create(client, org, name="Mine")
    got = client.get(f"{BASE}/{workspace['id']}", headers=org.headers).json
    assert got == workspace
    assert_envelope(client.get(f"{BASE}/{workspace['id']}", headers=other_org.headers), 404)
    assert_envelope(client.get(f"{BASE}/ws_nope", headers=org.headers), 404)


@pytest.mark.dialect  # updated_at read back
def test_update_changes_given_fields_and_updated_at(client, org):
    workspace = create(client, org, name="Before")
    url = f"{BASE}/{workspace['id']}"
    renamed = client.post(url, json={"name": "After"}, headers=org.headers).json
    assert renamed["name"] == "After"
    assert renamed["data_retention"] == {"unit": "days", "value": 7}
    assert renamed["updated_at"] > workspace["updated_at"]
    retained = client.post(url, json={"data_retention": {"unit": "hours", "value": 48}},
                           headers=org.headers).json
    assert retained["name"] == "After"
    assert retained["data_retention"] == {"unit": "hours", "value": 48}
    assert retained["created_at"] == workspace["created_at"]
    # An empty body changes nothing but the update time.
    assert client.post(url, json={}, headers=org.headers).json["name"] == "After"
    # null resets a field to its default (as the OpenAPI document says).
    assert client.post(url, json={"name": None}, headers=org.headers).json["name"] == "Workspace"
    reset = client.post(url, json={"data_retention": None}, headers=org.headers).json
    assert reset["data_retention"] == {"unit": "days", "value": 7}
    assert reset["name"] == "Workspace"
    assert_envelope(client.post(url, json={"data_retention": {"unit": "days", "value": 15}},
                                headers=org.headers), 400)
    assert_envelope(client.post(url, json={"name": ""}, headers=org.headers), 400)
    assert_envelope(client.post(url, json={"name": "Theirs"},
                                headers={"x-api-key": "bz_live_not-a-key"}), 401)


def test_update_is_isolated(client, org, other_org):
    workspace = create(client, org, name="Mine")
    url = f"{BASE}/{workspace['id']}"
    assert_envelope(client.post(url, json={"name": "Theirs"}, headers=other_org.headers), 404)
    assert client.get(url, headers=org.headers).json["name"] == "Mine"


@pytest.mark.dialect  # UPDATE row counts, archived_at kept
def test_archive_deactivates_keys_and_is_idempotent(app, client, org):
    workspace = create(client, org, name="Temp")
    key = make_key(app, org, workspace_id=workspace["id"])
    keep = make_key(app, org)  # a key of the default workspace stays active
    # A workspace key that authenticates is refused here with 403; one that does not, 401.
    assert_envelope(client.get(BASE, headers={"x-api-key": key}), 403)
    archived = client.post(f"{BASE}/{workspace['id']}/archive", headers=org.headers).json
    WorkspaceOut.model_validate(archived)
    assert archived["archived_at"] is not None
    with get_engine(app).connect() as conn:
        active = dict(conn.execute(sa.select(schema.api_keys.c.workspace_id,
                                             schema.api_keys.c.is_active)).all())
    assert active[workspace["id"]] is False
    assert active[org.workspace_id] is True
    # The archived workspace's key no longer authenticates; the other key still does.
    assert_envelope(client.get(BASE, headers={"x-api-key": key}), 401)
    assert_envelope(client.get(BASE, headers={"x-api-key": keep}), 403)
    again = client.post(f"{BASE}/{workspace['id']}/archive", headers=org.headers).json
    assert again == archived
    # Archived workspaces stay listed and retrievable, and cannot be updated.
    assert client.get(f"{BASE}/{workspace['id']}", headers=org.headers).json == archived
    body = assert_envelope(client.post(f"{BASE}/{workspace['id']}", json={"name": "Back"},
                                       headers=org.headers), 409)
    assert "archived" in body["message"]


def test_default_workspace_cannot_be_archived(client, org):
    body = assert_envelope(
        client.post(f"{BASE}/{org.workspace_id}/archive", headers=org.headers), 409)
    assert "default" in body["message"]
    assert client.get(f"{BASE}/{org.workspace_id}", headers=org.headers).json[
        "archived_at"] is None


def test_archive_is_isolated(client, org, other_org):
    workspace = create(client, org)
    assert_envelope(
        client.post(f"{BASE}/{workspace['id']}/archive", headers=other_org.headers), 404)
    assert client.get(f"{BASE}/{workspace['id']}", headers=org.headers).json[
        "archived_at"] is None


def test_list_is_isolated(client, org, other_org):
    create(client, org, name="Secret project")
    listed = client.get(BASE, headers=other_org.headers).json["data"]
    assert [w["id"] for w in listed] == [other_org.workspace_id]


def test_workspace_key_is_403_on_every_workspace_endpoint(app, client, org):
    key = {"x-api-key": make_key(app, org)}
    url = f"{BASE}/{org.workspace_id}"
    for response in (
        client.post(BASE, json={}, headers=key),
        client.get(BASE, headers=key),
        client.get(url, headers=key),
        client.post(url, json={"name": "x"}, headers=key),
        client.post(f"{url}/archive", headers=key),
    ):
        assert_envelope(response, 403)
    assert client.get(BASE, headers=org.headers).json["data"][0]["name"] == "Default"
