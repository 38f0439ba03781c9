"""The service's shared mechanics: the error envelope, authentication, ids."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.platform.db import get_conn, get_engine
from app.platform.ids import is_record_id, new_id, new_secret_id
from app.platform.timeutil import utcnow
from app.store import api_keys, schema
from app.store.organizations import create_organization
from tests.support.factories import assert_envelope


def test_unknown_api_route_answers_envelope(client):
    assert_envelope(client.get("/compute/v1/no-such-thing"), 404)


def test_wrong_method_answers_envelope_with_allow(client):
    response = client.delete("/compute/v1/share-links")
    assert_envelope(response, 405)
    assert "POST" in response.headers["Allow"]


def test_options_is_a_405_envelope_not_an_empty_page(client):
    response = client.options("/compute/v1/share-links")
    assert_envelope(response, 405)
    assert response.headers["Allow"] == "POST"


def test_record_ids_sort_in_creation_order():
    ids = [new_id("res") for _ in range(2000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(is_record_id(i, "res") for i in ids)
    assert not is_record_id("res_short", "res")


def test_secret_ids_carry_at_least_128_bits():
    value = new_secret_id("sl_")
    # 24 random bytes in URL-safe base64 are 32 characters: 192 bits.
    assert len(value) - len("sl_") == 32
    assert new_secret_id("sl_") != value


def test_missing_key_is_401(client):
    assert_envelope(client.get("/compute/v1/admin/workspaces"), 401)


def test_unknown_key_is_401(client, org):
    headers = {"x-api-key": org.admin_key + "x"}
    response = client.get("/compute/v1/admin/workspaces", headers=headers)
    assert_envelope(response, 401)


def test_last_used_is_written_once_per_minute(app, client, org):
    client.get("/compute/v1/admin/workspaces", headers=org.headers)
    with get_engine(app).connect() as conn:
        first = conn.execute(schema.api_keys.select()).first().last_used_at
    assert first is not None
    client.get("/compute/v1/admin/workspaces", headers=org.headers)
    with get_engine(app).connect() as conn:
        key = api_keys.find_key_for_auth(conn, org.admin_key)
    assert key.last_used_at == first
    # A use more than a minute later is recorded.
    with get_engine(app).begin() as conn:
        api_keys.touch_last_used(conn, key, utcnow() + timedelta(minutes=2))
        later = api_keys.find_key_for_auth(conn, org.admin_key).last_used_at
    assert later > first


def test_an_unexpected_failure_is_a_500_envelope_without_internals(app, client, caplog):
    # A real failure, not a patched function: the table the endpoint reads is gone.
    with get_engine(app).begin() as conn:
        conn.execute(schema.share_link_emails.delete())
        conn.execute(schema.share_link_resources.delete())
        conn.execute(sa.text("DROP TABLE share_link_resources"))
        conn.execute(sa.text("DROP TABLE share_link_emails"))
        conn.execute(sa.text("DROP TABLE share_links"))
    link_id = "sl_" + "A" * 32
    response = client.get(f"/compute/v1/share/{link_id}")
    body = assert_envelope(response, 500)
    text = response.get_data(as_text=True)
    for leak in ("Traceback", "share_links", "SELECT", "sqlalchemy", "psycopg", "sqlite"):
        assert leak not in text
    assert body["error"] == "Internal Server Error"
    # The failure is logged for operators, with the share id redacted.
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "unhandled error" in logged
    assert link_id not in logged


@pytest.mark.dialect  # rollback after a write (pysqlite begins at it)
def test_an_unexpected_failure_after_a_write_keeps_nothing(app, service_app):
    # The 500 handler answers the exception, so teardown sees none: the write must still
    # be rolled back, not committed.
    @service_app.get("/compute/v1/test-fails-after-a-write")
    def _fails_after_a_write():
        create_organization(get_conn(), "half-made")
        raise RuntimeError("failure after a write")

    response = app.test_client().get("/compute/v1/test-fails-after-a-write")
    assert_envelope(response, 500)
    with get_engine(app).connect() as conn:
        organizations = conn.execute(
            sa.select(sa.func.count()).select_from(schema.organizations)
        ).scalar_one()
    assert organizations == 0
