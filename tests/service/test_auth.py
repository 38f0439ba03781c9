"""Authentication with ``x-api-key``: every check, source IPs, proxies, last use."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event

from app import create_app
from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import api_keys, schema
from tests.support.admin import assert_envelope, make_key

ADMIN_URL = "/compute/v1/admin/workspaces"


def probe(client, key, **kwargs):
    """A workspace key that authenticates gets 403 on an admin endpoint, else 401."""
    return client.get(ADMIN_URL, headers={"x-api-key": key, **kwargs.pop("headers", {})},
                      **kwargs)


def test_missing_empty_and_unknown_keys_are_401(client, org):
    assert_envelope(client.get(ADMIN_URL), 401)
    assert_envelope(client.get(ADMIN_URL, headers={"x-api-key": ""}), 401)
    assert_envelope(client.get(ADMIN_URL, headers={"x-api-key": "bz_live_" + "A" * 43}), 401)
    # A prefix of a real key is not that key.
    assert_envelope(client.get(ADMIN_URL, headers={"x-api-key": org.admin_key[:12]}), 401)
    assert client.get(ADMIN_URL, headers=org.headers).status_code == 200


def test_revoked_key_is_401(app, client, org):
    key = make_key(app, org)
    with get_engine(app).begin() as conn:
        record = api_keys.find_key_for_auth(conn, key)
        api_keys.revoke_api_key(conn, record)
    assert "revoked" in assert_envelope(probe(client, key), 401)["message"]


@pytest.mark.dialect  # expires_at read back and compared
def test_expired_key_is_401_and_unexpired_works(app, client, org):
    expired = make_key(app, org, expires_at=utcnow() - timedelta(seconds=1))
    assert "expired" in assert_envelope(probe(client, expired), 401)["message"]
    fresh = make_key(app, org, expires_at=utcnow() + timedelta(minutes=5))
    assert_envelope(probe(client, fresh), 403)


def test_key_of_archived_workspace_is_401_even_if_still_active(app, client, org):
    workspace = client.post(ADMIN_URL, json={}, headers=org.headers).json
    key = make_key(app, org, workspace_id=workspace["id"])
    client.post(f"{ADMIN_URL}/{workspace['id']}/archive", headers=org.headers)
    # Re-activate the key behind the service's back: the workspace check must still hold.
    with get_engine(app).begin() as conn:
        conn.execute(schema.api_keys.update()
                     .where(schema.api_keys.c.workspace_id == workspace["id"])
                     .values(is_active=True))
    assert "archived" in assert_envelope(probe(client, key), 401)["message"]


@pytest.mark.parametrize(
    ("allowed", "remote", "ok"),
    [
        (["127.0.0.1"], "127.0.0.1", True),
        (["10.1.2.3"], "127.0.0.1", False),
        (["10.1.2.3", "192.0.2.7"], "192.0.2.7", True),
        (["2001:db8::1"], "2001:db8::1", True),
        (["2001:db8::1"], "2001:0db8:0000::0001", True),
        (["2001:db8::1"], "2001:db8::2", False),
        (["10.0.0.5"], "::ffff:10.0.0.5", True),
        (["::1"], "127.0.0.1", False),
        ([], "198.51.100.1", True),
    ],
)
@pytest.mark.dialect  # allowed_ips is a JSON column
def test_source_ip_must_be_allowed(app, client, org, allowed, remote, ok):
    key = make_key(app, org, allowed_ips=allowed)
    response = probe(client, key, environ_base={"REMOTE_ADDR": remote})
    body = assert_envelope(response, 403)
    # 403 either way; the message tells an address refusal from the kind refusal.
    assert ("IP address" in body["message"]) is (not ok)


def test_spoofed_forwarded_for_is_ignored_by_default(app, client, org):
    key = make_key(app, org, allowed_ips=["203.0.113.9"])
    response = probe(client, key, headers={"X-Forwarded-For": "203.0.113.9"},
                     environ_base={"REMOTE_ADDR": "198.51.100.20"})
    assert "IP address" in assert_envelope(response, 403)["message"]


@pytest.fixture
def proxied_app(db_url, tmp_path):
    """The app configured to sit behind one trusted proxy."""
    application = create_app({
        "TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "t",
        "ARTIFACT_DIR": str(tmp_path / "a"), "TRUSTED_PROXY_COUNT": 1,
    }, instance_path=str(tmp_path / "instance"))
    yield application
    get_engine(application).dispose()


@pytest.mark.parametrize("client_ip", ["203.0.113.9", "2001:db8::9"])
def test_forwarded_for_is_used_behind_a_trusted_proxy(proxied_app, app, org, client_ip):
    key = make_key(app, org, allowed_ips=[client_ip])
    client = proxied_app.test_client()
    # The proxy (REMOTE_ADDR) appends the real client; only the last hop is trusted, so a
    # value the client put in front is ignored.
    allowed = probe(client, key, headers={"X-Forwarded-For": f"6.6.6.6, {client_ip}"},
                    environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert "IP address" not in assert_envelope(allowed, 403)["message"]
    spoofed = probe(client, key, headers={"X-Forwarded-For": f"{client_ip}, 6.6.6.6"},
                    environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert "IP address" in assert_envelope(spoofed, 403)["message"]


def test_last_used_at_costs_no_write_on_most_requests(service_app, client, org):
    engine = get_engine(service_app)
    updates: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("UPDATE API_KEYS"):
            updates.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        for _ in range(25):
            assert client.get(ADMIN_URL, headers=org.headers).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(updates) == 1
    with engine.connect() as conn:
        assert api_keys.find_key_for_auth(conn, org.admin_key).last_used_at is not None


def test_key_of_another_org_sees_nothing_of_this_one(client, org, other_org):
    workspace = client.post(ADMIN_URL, json={"name": "Private"}, headers=org.headers).json
    assert_envelope(client.get(f"{ADMIN_URL}/{workspace['id']}", headers=other_org.headers), 404)
    names = [w["name"] for w in client.get(ADMIN_URL, headers=other_org.headers).json["data"]]
    assert "Private" not in names
