"""Share links: create (every rule and limit), retrieve, archive, and organization isolation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.platform.db import get_engine
from app.store import api_keys, schema
from app.store import share_links as store
from tests.support import factories
from tests.support.factories import assert_envelope

URL = "/compute/v1/share-links"


def future(**delta) -> str:
    """Return an ISO 8601 UTC time ``delta`` from now (default one day)."""
    delta = delta or {"days": 1}
    return (datetime.now(UTC) + timedelta(**delta)).isoformat().replace("+00:00", "Z")


@pytest.fixture
def pipeline(app, org):
    """A pipeline with three results in the org's default workspace."""
    with get_engine(app).begin() as conn:
        pipeline_id, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=3)
    return pipeline_id


@pytest.fixture
def prediction(app, org):
    """A prediction in the org's default workspace."""
    with get_engine(app).begin() as conn:
        return factories.insert_prediction(conn, org.workspace_id)


def workspace_key(app, org, workspace_id: str) -> dict[str, str]:
    """Create a workspace-scoped key; return headers that authenticate with it."""
    with get_engine(app).begin() as conn:
        _record, secret = api_keys.create_api_key(
            conn, organization_id=org.organization_id, workspace_id=workspace_id,
            key_type="workspace", name="ws key",
        )
    return {"x-api-key": secret}


def create(client, headers, **body):
    """POST a share link with ``body`` (expires_at defaults to tomorrow)."""
    body.setdefault("expires_at", future())
    return client.post(URL, json=body, headers=headers)


def test_create_public_link_by_default(client, org, pipeline, prediction):
    expires = "2026-12-31T23:59:59.250+01:00"
    if datetime.fromisoformat(expires) <= datetime.now(UTC):
        expires = future(days=30)
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      prediction_ids=[prediction], expires_at=expires)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert set(body) == {"id", "access_parameters", "archived_at", "created_at", "expires_at",
                         "pipeline_ids", "prediction_ids", "workspace_id", "url"}
    assert body["id"].startswith("sl_") and len(body["id"]) >= 3 + 22
    assert body["access_parameters"] == {"access_mode": "public"}
    assert body["archived_at"] is None
    assert body["pipeline_ids"] == [pipeline]
    assert body["prediction_ids"] == [prediction]
    assert body["workspace_id"] == org.workspace_id
    assert body["url"] == f"http://viewer.test/share/{body['id']}"
    parsed = datetime.fromisoformat(body["expires_at"])
    assert parsed == datetime.fromisoformat(expires)
    assert body["expires_at"].endswith("Z")


def test_url_never_names_an_untrusted_host(app, client, org, pipeline):
    # Without FLASK_PUBLIC_URL the Host header is the client's choice: a link handed out
    # on create or retrieve must not send its readers there (it is relative instead).
    app.config["PUBLIC_URL"] = None
    hostile = {**org.headers, "Host": "evil.example"}
    created = create(client, hostile, pipeline_ids=[pipeline]).get_json()
    fetched = client.get(f"{URL}/{created['id']}", headers=hostile).get_json()
    for body in (created, fetched):
        assert "evil.example" not in body["url"]
        assert body["url"] == f"/share/{created['id']}"


def test_url_uses_the_request_host_when_trusted_hosts_vouch_for_it(app, client, org,
                                                                   pipeline):
    app.config.update(PUBLIC_URL=None, TRUSTED_HOSTS=["share.example.org"])
    body = create(client, {**org.headers, "Host": "share.example.org"},
                  pipeline_ids=[pipeline]).get_json()
    assert body["url"] == f"http://share.example.org/share/{body['id']}"


def test_explicit_public_mode(client, org, pipeline):
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      access_parameters={"access_mode": "public"})
    assert response.status_code == 200
    assert response.get_json()["access_parameters"] == {"access_mode": "public"}


def test_email_mode_dedupes_case_insensitively(client, org, pipeline):
    emails = ["Ada@Example.org", "bob@example.org", "ada@example.ORG", "BOB@example.org"]
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      access_parameters={"access_mode": "email", "allowed_emails": emails})
    assert response.status_code == 200, response.get_json()
    access = response.get_json()["access_parameters"]
    assert access["access_mode"] == "email"
    assert [e.lower() for e in access["allowed_emails"]] == ["ada@example.org",
                                                              "bob@example.org"]


@pytest.mark.parametrize("count, status", [(1, 200), (100, 200), (101, 400), (0, 400)])
def test_allowed_emails_limits(client, org, pipeline, count, status):
    emails = [f"user{i}@example.org" for i in range(count)]
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      access_parameters={"access_mode": "email", "allowed_emails": emails})
    assert response.status_code == status, response.get_json()
    if status == 200:
        assert len(response.get_json()["access_parameters"]["allowed_emails"]) == count
    else:
        assert "allowed_emails" in assert_envelope(response, 400)["message"]


@pytest.mark.parametrize(
    "access, field",
    [
        ({"access_mode": "email"}, "allowed_emails"),
        ({"access_mode": "email", "allowed_emails": ["not-an-address"]}, "allowed_emails"),
        ({"access_mode": "email", "allowed_emails": "a@example.org"}, "allowed_emails"),
        ({"access_mode": "email", "allowed_emails": [7]}, "allowed_emails"),
        ({"access_mode": "public", "allowed_emails": ["a@example.org"]}, "allowed_emails"),
        ({"access_mode": "secret"}, "access_mode"),
        ({}, "access_mode"),
        ("public", "access_parameters"),
    ],
)
def test_bad_access_parameters(client, org, pipeline, access, field):
    response = create(client, org.headers, pipeline_ids=[pipeline], access_parameters=access)
    message = assert_envelope(response, 400)["message"]
    assert field in message
    assert "access_parameters" in message


def insert_pipelines(app, workspace_id: str, count: int) -> list[str]:
    """Insert ``count`` empty pipelines; return their ids."""
    with get_engine(app).begin() as conn:
        return [factories.insert_pipeline(conn, workspace_id)[0] for _ in range(count)]


def insert_predictions(app, workspace_id: str, count: int) -> list[str]:
    """Insert ``count`` predictions; return their ids."""
    with get_engine(app).begin() as conn:
        return [factories.insert_prediction(conn, workspace_id) for _ in range(count)]


@pytest.mark.parametrize("field", ["pipeline_ids", "prediction_ids"])
def test_id_list_limits(app, client, org, field):
    insert = insert_pipelines if field == "pipeline_ids" else insert_predictions
    ids = insert(app, org.workspace_id, 101)
    ok = create(client, org.headers, **{field: ids[:100]})
    assert ok.status_code == 200, ok.get_json()
    assert ok.get_json()[field] == ids[:100]
    too_many = create(client, org.headers, **{field: ids})
    assert field in assert_envelope(too_many, 400)["message"]


def test_ids_are_deduplicated_in_order(app, client, org):
    a, b, c = insert_pipelines(app, org.workspace_id, 3)
    body = create(client, org.headers, pipeline_ids=[c, a, c, b, a]).get_json()
    assert body["pipeline_ids"] == [c, a, b]


def test_at_least_one_id(client, org):
    for body in ({}, {"pipeline_ids": []}, {"pipeline_ids": [], "prediction_ids": []}):
        response = create(client, org.headers, **body)
        assert "at least one" in assert_envelope(response, 400)["message"]


def test_unknown_ids_are_named_without_revealing_other_orgs(app, client, org, other_org,
                                                            pipeline):
    foreign = insert_pipelines(app, other_org.workspace_id, 1)[0]
    foreign_pred = insert_predictions(app, other_org.workspace_id, 1)[0]
    unknown = "pl_01ZZZZZZZZZZZZZZZZZZZZZZZZ"
    for field, value, kind in [("pipeline_ids", foreign, "pipeline"),
                               ("pipeline_ids", unknown, "pipeline"),
                               ("prediction_ids", foreign_pred, "prediction")]:
        response = create(client, org.headers, **{field: [pipeline, value]}
                          if field == "pipeline_ids" else {field: [value]})
        message = assert_envelope(response, 400)["message"]
        assert message == f"{field}: {value} is not a {kind} of workspace {org.workspace_id}"
    assert factories.count_rows(app, schema.share_links) == 0


def test_ids_of_another_workspace_of_the_org_are_refused(app, client, org):
    second = factories.add_workspace(app, org)
    pipeline = insert_pipelines(app, second, 1)[0]
    response = create(client, org.headers, pipeline_ids=[pipeline])
    assert "pipeline_ids" in assert_envelope(response, 400)["message"]
    ok = create(client, org.headers, pipeline_ids=[pipeline], workspace_id=second)
    assert ok.status_code == 200
    assert ok.get_json()["workspace_id"] == second


@pytest.mark.parametrize(
    "expires_at, fragment",
    [
        ("2027-01-01T00:00:00", "timezone"),
        ("2020-01-01T00:00:00Z", "future"),
        ("next tuesday", "ISO 8601"),
        ("2026-13-01T00:00:00Z", "ISO 8601"),
        ("", "ISO 8601"),
        (1893456000, "string"),
        (None, "string"),
        (["2027-01-01T00:00:00Z"], "string"),
    ],
)
def test_bad_expiry(client, org, pipeline, expires_at, fragment):
    response = create(client, org.headers, pipeline_ids=[pipeline], expires_at=expires_at)
    message = assert_envelope(response, 400)["message"]
    assert message.startswith("expires_at:")
    assert fragment in message


def test_expiry_limit_is_365_days(client, org, pipeline):
    assert create(client, org.headers, pipeline_ids=[pipeline],
                  expires_at=future(days=364, hours=23)).status_code == 200
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      expires_at=future(days=365, minutes=1))
    assert "365 days" in assert_envelope(response, 400)["message"]


def test_expires_at_is_required(client, org, pipeline):
    response = client.post(URL, json={"pipeline_ids": [pipeline]}, headers=org.headers)
    assert assert_envelope(response, 400)["message"] == "expires_at: is required"


@pytest.mark.parametrize(
    "raw, content_type",
    [
        (b"{not json", "application/json"),
        (b"[]", "application/json"),
        (b'"text"', "application/json"),
        (b'{"expires_at": "2027-01-01T00:00:00Z"}', "text/plain"),
        (b"\xff\xfe", "application/json"),
    ],
)
def test_malformed_bodies(app, client, org, raw, content_type):
    response = client.post(URL, data=raw, headers={**org.headers,
                                                   "Content-Type": content_type})
    assert_envelope(response, 400)
    assert factories.count_rows(app, schema.share_links) == 0


@pytest.mark.parametrize(
    "body, field",
    [
        ({"pipeline_ids": "pl_x"}, "pipeline_ids"),
        ({"pipeline_ids": [1]}, "pipeline_ids"),
        ({"pipeline_ids": ["x" * 65]}, "pipeline_ids"),
        ({"prediction_ids": {"a": 1}}, "prediction_ids"),
        ({"workspace_id": 5}, "workspace_id"),
        ({"surprise": True}, "surprise"),
    ],
)
def test_wrong_types_and_unknown_fields(app, client, org, pipeline, body, field):
    body = {"pipeline_ids": [pipeline], **body}
    response = create(client, org.headers, **body)
    assert field in assert_envelope(response, 400)["message"]
    assert factories.count_rows(app, schema.share_links) == 0


def test_huge_body_is_413(client, org):
    raw = b'{"pipeline_ids": ["' + b"x" * (2 * 1024 * 1024) + b'"]}'
    response = client.post(URL, data=raw, headers={**org.headers,
                                                   "Content-Type": "application/json"})
    assert_envelope(response, 413)


def test_key_is_required(client, pipeline):
    assert_envelope(client.post(URL, json={"pipeline_ids": [pipeline],
                                           "expires_at": future()}), 401)


def test_admin_key_with_foreign_or_archived_workspace(app, client, org, other_org, pipeline):
    response = create(client, org.headers, pipeline_ids=[pipeline],
                      workspace_id=other_org.workspace_id)
    message = assert_envelope(response, 400)["message"]
    assert message == (f"workspace_id: {other_org.workspace_id} is not a workspace of this "
                       "organization")
    archived = factories.add_workspace(app, org, archived_at=datetime(2026, 1, 1))
    response = create(client, org.headers, pipeline_ids=[pipeline], workspace_id=archived)
    assert "archived" in assert_envelope(response, 400)["message"]


def test_workspace_key_uses_its_workspace(app, client, org):
    second = factories.add_workspace(app, org)
    headers = workspace_key(app, org, second)
    pipeline = insert_pipelines(app, second, 1)[0]
    response = create(client, headers, pipeline_ids=[pipeline])
    assert response.status_code == 200
    assert response.get_json()["workspace_id"] == second
    same = create(client, headers, pipeline_ids=[pipeline], workspace_id=second)
    assert same.status_code == 200


def test_workspace_key_with_another_workspace_id_is_403(app, client, org, pipeline):
    second = factories.add_workspace(app, org)
    headers = workspace_key(app, org, second)
    response = create(client, headers, pipeline_ids=[pipeline], workspace_id=org.workspace_id)
    assert "workspace_id" in assert_envelope(response, 403)["message"]
    # Without workspace_id the key's own workspace is used, where the pipeline is not.
    response = create(client, headers, pipeline_ids=[pipeline])
    assert "pipeline_ids" in assert_envelope(response, 400)["message"]


@pytest.mark.dialect  # times and e-mails read back as answered
def test_retrieve_returns_what_create_returned(client, org, pipeline):
    created = create(client, org.headers, pipeline_ids=[pipeline],
                     access_parameters={"access_mode": "email",
                                        "allowed_emails": ["a@example.org"]}).get_json()
    response = client.get(f"{URL}/{created['id']}", headers=org.headers)
    assert response.status_code == 200
    assert response.get_json() == created


def test_retrieve_and_archive_are_404_for_other_orgs(client, org, other_org, pipeline):
    link = create(client, org.headers, pipeline_ids=[pipeline]).get_json()
    unknown = client.get(f"{URL}/sl_unknown", headers=org.headers)
    foreign = client.get(f"{URL}/{link['id']}", headers=other_org.headers)
    assert_envelope(foreign, 404)
    assert foreign.data == unknown.data
    archive = client.post(f"{URL}/{link['id']}/archive", headers=other_org.headers)
    assert archive.data == unknown.data
    assert client.get(f"{URL}/{link['id']}", headers=org.headers).get_json()[
        "archived_at"] is None


def test_workspace_key_sees_only_its_workspace(app, client, org, pipeline):
    link = create(client, org.headers, pipeline_ids=[pipeline]).get_json()
    second = factories.add_workspace(app, org)
    outsider = workspace_key(app, org, second)
    insider = workspace_key(app, org, org.workspace_id)
    assert_envelope(client.get(f"{URL}/{link['id']}", headers=outsider), 404)
    assert_envelope(client.post(f"{URL}/{link['id']}/archive", headers=outsider), 404)
    assert client.get(f"{URL}/{link['id']}", headers=insider).status_code == 200


@pytest.mark.dialect  # archived_at kept, read back
def test_archive_is_idempotent_and_keeps_the_first_time(app, client, org, pipeline):
    link = create(client, org.headers, pipeline_ids=[pipeline]).get_json()
    first = client.post(f"{URL}/{link['id']}/archive", headers=org.headers)
    assert first.status_code == 200
    body = first.get_json()
    assert set(body) == {"id", "archived", "archived_at"}
    assert body["id"] == link["id"] and body["archived"] is True
    second = client.post(f"{URL}/{link['id']}/archive", headers=org.headers)
    assert second.get_json() == body
    retrieved = client.get(f"{URL}/{link['id']}", headers=org.headers).get_json()
    assert retrieved["archived_at"] == body["archived_at"]


@pytest.mark.dialect  # a past expiry read back
def test_expired_links_are_still_retrievable(app, client, org, pipeline):
    link = factories.make_link(app, org, pipeline_ids=[pipeline],
                               expires_in=timedelta(days=-1))
    response = client.get(f"{URL}/{link.id}", headers=org.headers)
    assert response.status_code == 200
    assert datetime.fromisoformat(response.get_json()["expires_at"]) < datetime.now(UTC)


@pytest.mark.dialect  # aware expiry stored as naive UTC
def test_store_function_dedupes_and_keeps_order(app, org):
    """``create_share_link`` is also called directly (demo seeder): it must not store repeats."""
    aware = datetime.now(UTC) + timedelta(days=2, microseconds=123456)
    with get_engine(app).begin() as conn:
        link = store.create_share_link(
            conn, organization_id=org.organization_id, workspace_id=org.workspace_id,
            access_mode="email", allowed_emails=["B@x.org", "a@x.org", "b@X.ORG"],
            pipeline_ids=["pl_2", "pl_1", "pl_2"], prediction_ids=["pr_1", "pr_1"],
            expires_at=aware,
        )
        loaded = store.get_for_owner(conn, link.id, organization_id=org.organization_id)
    assert loaded == link
    assert link.allowed_emails == ["B@x.org", "a@x.org"]
    assert link.pipeline_ids == ["pl_2", "pl_1"] and link.prediction_ids == ["pr_1"]
    assert link.expires_at.tzinfo is None
    assert link.expires_at == aware.replace(tzinfo=None, microsecond=aware.microsecond
                                            // 1000 * 1000)
    assert link.id.startswith("sl_") and link.archived_at is None
    with get_engine(app).begin() as conn, pytest.raises(ValueError):
        store.create_share_link(
            conn, organization_id=org.organization_id, workspace_id=org.workspace_id,
            access_mode="secret", allowed_emails=[], pipeline_ids=["pl_1"],
            prediction_ids=[], expires_at=aware,
        )


def test_public_store_links_ignore_addresses(app, org):
    with get_engine(app).begin() as conn:
        link = store.create_share_link(
            conn, organization_id=org.organization_id, workspace_id=org.workspace_id,
            access_mode="public", allowed_emails=["a@x.org"], pipeline_ids=["pl_1"],
            prediction_ids=[], expires_at=datetime(2030, 1, 1),
        )
    assert link.allowed_emails == []
