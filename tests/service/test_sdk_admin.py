"""The public SDK (``boltz_api``) drives administration, answered by the app in process
(``tests/support/sdk_clients.py``); through gunicorn, ``tests/test_wsgi.py``."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import boltz_api
import pytest

from app.platform.db import get_engine
from app.store.usage import add_usage_records
from tests.support.sdk_clients import sdk_client

DAY0 = datetime(2026, 4, 1, tzinfo=UTC)


@pytest.fixture
def sdk(app, org):
    """An SDK client authenticated with the organization's admin key."""
    with sdk_client(app, org.admin_key) as client:
        yield client


def test_workspaces_through_the_sdk(sdk, org):
    created = sdk.admin.workspaces.create(name="SDK lab",
                                          data_retention={"unit": "hours", "value": 48})
    assert created.name == "SDK lab"
    assert created.data_retention.unit == "hours" and created.data_retention.value == 48
    assert created.is_default is False and created.archived_at is None
    assert created.created_at.tzinfo is not None

    fetched = sdk.admin.workspaces.retrieve(created.id)
    assert fetched.id == created.id and fetched.name == "SDK lab"

    updated = sdk.admin.workspaces.update(created.id, name="Renamed",
                                          data_retention={"unit": "days", "value": 14})
    assert updated.name == "Renamed" and updated.data_retention.value == 14
    assert updated.updated_at >= created.updated_at

    more = [sdk.admin.workspaces.create(name=f"w{i}").id for i in range(24)]
    # Auto-paging over after_id visits every workspace once, in id order.
    seen = [w.id for w in sdk.admin.workspaces.list(limit=7)]
    assert seen == [org.workspace_id, created.id, *more]
    first_page = sdk.admin.workspaces.list(limit=7)
    assert first_page.has_more is True and len(first_page.data) == 7
    backward = sdk.admin.workspaces.list(before_id=more[-1], limit=5)
    assert [w.id for w in backward.data] == seen[-6:-1]

    archived = sdk.admin.workspaces.archive(created.id)
    assert archived.archived_at is not None
    assert sdk.admin.workspaces.archive(created.id).archived_at == archived.archived_at
    with pytest.raises(boltz_api.ConflictError):
        sdk.admin.workspaces.archive(org.workspace_id)
    with pytest.raises(boltz_api.NotFoundError):
        sdk.admin.workspaces.retrieve("ws_00000000000000000000000000")
    with pytest.raises(boltz_api.BadRequestError) as caught:
        sdk.admin.workspaces.create(data_retention={"unit": "days", "value": 15})
    assert "data_retention" in str(caught.value)


def test_api_keys_through_the_sdk(sdk, app, org):
    workspace = sdk.admin.workspaces.create(name="Keys")
    made = sdk.admin.api_keys.create(name="ci", allowed_ips=["127.0.0.1", "::1"],
                                     expires_in_days=30, mode="test", workspace_id=workspace.id)
    details = made.key_details
    assert details.key_type == "workspace" and details.workspace_id == workspace.id
    assert details.livemode is False and details.is_active is True
    assert details.key_prefix == made.key[:12]
    assert details.allowed_ips == ["127.0.0.1", "::1"]
    assert details.expires_at - datetime.now(UTC) > timedelta(days=29)
    default_key = sdk.admin.api_keys.create(name="default")
    assert default_key.key_details.workspace_id == org.workspace_id

    # The new workspace key authenticates (from 127.0.0.1) but is no admin.
    with (sdk_client(app, made.key) as scoped,
          pytest.raises(boltz_api.PermissionDeniedError)):
        scoped.admin.workspaces.list()

    listed = list(sdk.admin.api_keys.list(limit=1))
    assert [k.id for k in listed] == sorted(k.id for k in listed)
    assert {k.key_type for k in listed} == {"admin", "workspace"}
    assert len(listed) == 3
    only = list(sdk.admin.api_keys.list(workspace_id=workspace.id))
    assert [k.id for k in only] == [details.id]

    revoked = sdk.admin.api_keys.revoke(details.id)
    assert revoked.is_active is False
    assert sdk.admin.api_keys.revoke(details.id).is_active is False
    with (sdk_client(app, made.key) as scoped,
          pytest.raises(boltz_api.AuthenticationError)):
        scoped.admin.workspaces.list()
    with pytest.raises(boltz_api.BadRequestError):
        sdk.admin.api_keys.create(name="bad", allowed_ips=["10.0.0.0/8"])


@pytest.mark.slow
def test_usage_through_the_sdk_with_auto_paging(sdk, app, org):
    second = sdk.admin.workspaces.create(name="Second").id
    rows, expected = [], Counter()
    for hour in range(48):
        for application, workspace_id in (("adme", org.workspace_id),
                                          ("protein_design", second),
                                          ("structure_and_binding", org.workspace_id)):
            at = DAY0 + timedelta(hours=hour, minutes=hour % 60)
            quantity = hour + 1
            rows.append({"organization_id": org.organization_id, "workspace_id": workspace_id,
                         "application": application, "quantity": quantity,
                         "recorded_at": int(at.timestamp())})
            if application != "structure_and_binding":
                bucket = at.replace(minute=0)
                expected[(bucket, application)] += quantity
    with get_engine(app).begin() as conn:
        add_usage_records(conn, rows)

    pages = sdk.admin.usage.list(
        starting_at=DAY0, ending_at=DAY0 + timedelta(days=2), window_size="HOUR",
        applications=["adme", "protein_design"], group_by=["application"], limit=7,
    )
    buckets = list(pages)
    assert len(buckets) == 96
    assert Counter({(b.start_time, b.application): b.quantity for b in buckets}) == expected
    keys = [(b.start_time, b.application) for b in buckets]
    assert keys == sorted(keys)
    assert all(b.end_time - b.start_time == timedelta(hours=1) for b in buckets)

    one = sdk.admin.usage.list(starting_at=DAY0, ending_at=DAY0 + timedelta(days=2),
                               window_size="DAY", workspace_ids=second, group_by="workspace_id")
    assert [(b.workspace_id, b.quantity) for b in one] == [
        (second, sum(range(1, 25))), (second, sum(range(25, 49)))]

    with pytest.raises(boltz_api.BadRequestError):
        sdk.admin.usage.list(starting_at=DAY0, ending_at=DAY0 + timedelta(days=32),
                             window_size="HOUR")
    with pytest.raises(boltz_api.BadRequestError):
        sdk.admin.usage.list(starting_at=DAY0, ending_at=DAY0 + timedelta(days=1),
                             window_size="HOUR", page="forged")

