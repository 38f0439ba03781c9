"""Schemathesis over the whole compute API: bad input never gets a 500, and every answer
matches the OpenAPI document the app serves at ``/compute/v1/openapi.json``.

The document is loaded from the app (WSGI, no server). Requests go, in process, to an app
whose database holds the demo (``seed_demo``'s, copied by ``seeded_demo``: once per module,
SQLite or the PostgreSQL of ``TEST_DATABASE_URL``), and every request to a keyed endpoint
carries the demo organization's real admin key. In the fuzzing phase, generated identifiers
are mostly swapped for real ones (share-link ids with the pipelines they cover and a valid
JWT for the email-mode link, workspaces, throwaway keys, presigned artifact URLs, creatable
share-link bodies), the rest stay as generated. So the success paths are exercised as well
as the 400/404 ones, and a per-operation guard fails if some operation offered real ids
never answered 200. Operations that destroy state (archive, revoke) only ever get throwaway
objects made for the purpose. Schemathesis skips the operation that serves the document
itself (``GET /compute/v1/openapi.json``); ``test_openapi.py`` covers it.

Checks on every response: not_a_server_error, status_code_conformance,
content_type_conformance, response_schema_conformance, and ``error_envelope`` (every error
body is exactly ``{statusCode, error, message}`` with ``statusCode`` equal to the status).
Generation is deterministic (fixed seed, ``deterministic``) and bounded (``MAX_EXAMPLES``
per operation in the fuzzing phase, plus schemathesis' coverage phase).

Schemathesis' ``from_fixture`` loader does not work with pytest 9.2 (it sets
``Function._nodeid``), hence an eager schema loaded from a document-only app, with the
seeded app passed to every call.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app import create_app
from app.domain import PIPELINE_KINDS
from app.platform.db import get_engine
from app.platform.share_tokens import mint
from app.platform.timeutil import utcnow
from app.store.api_keys import create_api_key
from app.store.share_links import create_share_link
from app.store.workspaces import create_workspace
from tests.support.apps import make_test_app
from tests.support.databases import migrated_database
from tests.support.demo import seeded_demo

DOCUMENT = "/compute/v1/openapi.json"
MAX_EXAMPLES = 50
SEED = 20261122
THROWAWAYS = 3  # links to archive, workspaces to archive, keys to revoke

CONFIG = schemathesis.Config.from_dict({
    "seed": SEED,
    "generation": {
        "mode": "all",
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,
        "database": "none",
    },
    "phases": {"stateful": {"enabled": False}},
})

# The document does not depend on the database: a bare app serves it for loading.
schema = schemathesis.openapi.from_wsgi(
    DOCUMENT,
    create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "SECRET_KEY": "document-only",
                "ARTIFACT_DIR": "/nonexistent"}),
    config=CONFIG,
)


@schemathesis.check
def error_envelope(ctx, response, case):
    """Every error answer is the JSON envelope ``{statusCode, error, message}``."""
    if response.status_code < 400:
        return True
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"error body is not JSON: {response.content[:200]!r}") from None
    assert isinstance(body, dict) and set(body) == {"statusCode", "error", "message"}, body
    assert body["statusCode"] == response.status_code, body
    assert isinstance(body["error"], str) and body["error"], body
    assert isinstance(body["message"], str) and body["message"], body
    return True


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    error_envelope,
]


@dataclass
class Seeded:
    """The seeded app and the real objects offered to generated requests."""

    app: object
    admin_key: str
    workspace_id: str
    readable_links: list[str]
    share_pairs: list[tuple[str, str]]  # (link id, a pipeline id the link covers)
    email_link: str
    email_token: str
    archivable_links: list[str]
    archivable_workspaces: list[str]
    revocable_keys: list[str]
    pipelines: dict[str, str] = field(default_factory=dict)  # kind -> id
    artifacts: list[tuple[str, str, str]] = field(default_factory=list)  # id, expires, sig

    def choices(self, path: str) -> list:
        """Return real values that a generated request to ``path`` may get instead."""
        if path.endswith("/pipelines/{pipeline_id}/results"):
            return self.share_pairs
        if path.endswith("/artifacts/{artifact_id}"):
            return self.artifacts
        if path.endswith("/share-links"):
            return [("body", pipeline) for _link, pipeline in self.share_pairs]
        if path.endswith("/share-links/{link_id}/archive"):
            return self.archivable_links
        if "{link_id}" in path:
            return self.readable_links
        if "{workspace_id}" in path:
            # Archiving the default workspace is refused (409); the others are throwaways.
            return [self.workspace_id, *self.archivable_workspaces]
        if path.endswith("/revoke"):
            return self.revocable_keys
        return []

    def substitute(self, case, choice):
        """Return ``case`` with the real identifiers of ``choice`` put in."""
        if choice is None:
            return case
        path = case.operation.path
        params = dict(case.path_parameters or {})
        link = None
        if path.endswith("/pipelines/{pipeline_id}/results"):
            link, params["pipeline_id"] = choice
            params["link_id"] = link
        elif path.endswith("/artifacts/{artifact_id}"):
            params["artifact_id"], expires, signature = choice
            case.query = {**(case.query or {}), "expires": expires, "signature": signature}
        elif path.endswith("/share-links"):
            if isinstance(case.body, dict):
                # A creatable link: a real pipeline, a future expiry, the real workspace.
                expires = (utcnow() + timedelta(days=2)).isoformat() + "Z"
                case.body = {**case.body, "pipeline_ids": [choice[1]], "expires_at": expires}
                if "workspace_id" in case.body:
                    case.body["workspace_id"] = self.workspace_id
        elif "{link_id}" in path:
            params["link_id"] = link = choice
        elif "{workspace_id}" in path:
            params["workspace_id"] = choice
        elif "{api_key_id}" in path:
            params["api_key_id"] = choice
        if link == self.email_link and path.startswith("/compute/v1/share/"):
            case.headers = {**(case.headers or {}),
                            "Authorization": f"Bearer {self.email_token}"}
        case.path_parameters = params
        return case


SEEDED: Seeded | None = None  # set by the module fixture; read by the generation hook


@schema.hook
def flatmap_case(context, case):
    """Put real identifiers in the generated case, or (one draw in 1 + choices) keep it."""
    options = SEEDED.choices(case.operation.path) if SEEDED else []
    if not options:
        return st.just(case)
    return st.sampled_from([None, *options]).map(lambda choice: SEEDED.substitute(case, choice))


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """An app on a migrated database holding the demo organization plus throwaways."""
    global SEEDED
    tmp_path = tmp_path_factory.mktemp("schemathesis")
    url, drop = migrated_database(tmp_path)
    app = make_test_app(url, tmp_path)
    # What seed_demo(get_engine(app), ..., public_url=app.config["PUBLIC_URL"]) makes,
    # copied (the test process's template: seeded once for every module that copies it).
    summary = seeded_demo(app, public_url=app.config["PUBLIC_URL"])
    engine = get_engine(app)
    org_id, workspace_id = summary["organization_id"], summary["workspace_id"]
    pipelines = summary["pipelines"]
    public_id = summary["share_links"]["public"]["id"]
    email = summary["share_links"]["email"]
    with engine.begin() as conn:
        archivable_links = [
            create_share_link(
                conn, organization_id=org_id, workspace_id=workspace_id, access_mode="public",
                allowed_emails=[], pipeline_ids=[pipelines["protein_design"]],
                prediction_ids=[], expires_at=utcnow() + timedelta(days=30),
            ).id
            for _ in range(THROWAWAYS)
        ]
        archivable_workspaces = [
            create_workspace(conn, organization_id=org_id, name=f"Throwaway {i}",
                             retention_unit="days", retention_value=7).id
            for i in range(THROWAWAYS)
        ]
        revocable_keys = [
            create_api_key(conn, organization_id=org_id, workspace_id=workspace_id,
                           key_type="workspace", name=f"Throwaway {i}")[0].id
            for i in range(THROWAWAYS)
        ]
    token = mint(email["id"], email["allowed_emails"][0], app)
    pairs = [(public_id, pipeline_id) for pipeline_id in pipelines.values()]
    pairs += [(email["id"], pipelines[kind]) for kind in
              ("protein_design", "small_molecule_design", "small_molecule_library_screen")]
    state = Seeded(
        app=app, admin_key=summary["admin_key"], workspace_id=workspace_id,
        readable_links=[public_id, email["id"]], share_pairs=pairs, email_link=email["id"],
        email_token=token, archivable_links=archivable_links,
        archivable_workspaces=archivable_workspaces, revocable_keys=revocable_keys,
        pipelines=pipelines,
    )
    # Presigned artifact URLs exactly as the API hands them out.
    client = app.test_client()
    for kind in ("protein_design", "small_molecule_design"):
        response = client.get(
            f"/compute/v1/share/{public_id}/pipelines/{pipelines[kind]}/results?limit=2")
        for record in response.get_json()["data"]:
            for artifact in record["artifacts"].values():
                url = urlsplit(artifact["url"])
                query = parse_qs(url.query)
                state.artifacts.append((url.path.rsplit("/", 1)[-1], query["expires"][0],
                                        query["signature"][0]))
    assert state.artifacts
    SEEDED = state
    yield state
    SEEDED = None
    get_engine(app).dispose()
    drop()


@pytest.fixture
def statuses(seeded):
    """Collect the statuses one operation answered; then require a 200 where real ids
    were offered (proves the substitutions reach the success paths)."""
    seen: dict[str, set[int]] = defaultdict(set)
    yield seen
    for label, codes in seen.items():
        path = label.split(" ", 1)[1]
        if seeded.choices(path):
            assert 200 in codes, f"{label} never answered 200 (saw {sorted(codes)})"


@pytest.mark.slow
@schema.parametrize()
# ``statuses`` deliberately accumulates over all the cases of one operation.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.dialect  # generated strings (NUL...) reach queries
def test_api_matches_its_openapi_document(case, seeded, statuses):
    """Every generated request gets a documented, well-formed answer; never a 500."""
    headers = None
    if case.operation.path.startswith(("/compute/v1/admin/", "/compute/v1/share-links")):
        headers = {"x-api-key": seeded.admin_key}
    response = case.call_and_validate(checks=CHECKS, app=seeded.app, headers=headers)
    statuses[case.operation.label].add(response.status_code)


# Regressions: what schemathesis found, pinned with plain requests.


@pytest.mark.parametrize(("starting_at", "ending_at"), [
    # Year 1 east of UTC is before year 1 in UTC (found: OverflowError, a 500).
    ("0001-01-01T00:00:01-01:01", "0001-01-01T00:00:00.0+08:00"),
    ("0001-01-01T00:00:01Z", "0001-01-01T00:00:00+00:01"),
    # Year 9999 west of UTC is after year 9999 in UTC.
    ("9999-12-31T23:00:00Z", "9999-12-31T23:59:59-01:00"),
])
def test_usage_dates_out_of_range_in_utc_are_a_400(client, org, starting_at, ending_at):
    response = client.get("/compute/v1/admin/usage", headers=org.headers, query_string={
        "starting_at": starting_at, "ending_at": ending_at, "window_size": "HOUR"})
    assert response.status_code == 400, response.data
    assert set(response.json) == {"statusCode", "error", "message"}
    assert "out of range" in response.json["message"]


@pytest.mark.parametrize("body", [
    "[" * 5000 + "]" * 5000,
    '{"name": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"a": ' * 5000 + "1" + "}" * 5000,
])
@pytest.mark.parametrize("path", ["/compute/v1/admin/api-keys", "/compute/v1/share-links"])
def test_deeply_nested_json_is_a_400(client, org, path, body):
    # Found by hand next to schemathesis: json.loads raised RecursionError, a 500.
    response = client.post(path, data=body, headers={**org.headers,
                                                     "Content-Type": "application/json"})
    assert response.status_code == 400, response.data
    assert response.json["message"] == "Request body is nested too deeply"


def _validated(seeded, method, path, *, headers=None, **fields):
    """Send one explicit request through schemathesis and run every check on the answer."""
    case = schema[path][method].Case(**fields)
    return case.call_and_validate(checks=CHECKS, app=seeded.app, headers=headers)


@pytest.mark.parametrize("kind", PIPELINE_KINDS)
@pytest.mark.dialect  # every kind's stored JSON as text
def test_every_result_kind_matches_its_page_schema(seeded, kind):
    """Fuzzing may miss a kind; each kind's page shape is validated here for sure."""
    link = seeded.readable_links[0]
    path = "/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results"
    params = {"link_id": link, "pipeline_id": seeded.pipelines[kind]}
    first = _validated(seeded, "GET", path, path_parameters=params, query={"limit": 3})
    assert first.status_code == 200
    page = first.json()
    assert page["data"] and page["has_more"] in (True, False)
    ids = ",".join(record["id"] for record in page["data"][:2])
    second = _validated(seeded, "GET", path, path_parameters=params,
                        query={"ids": ids, "after_id": page["first_id"]})
    assert second.status_code == 200
    assert [r["id"] for r in second.json()["data"]] == [r["id"] for r in page["data"][1:2]]


def test_email_link_reads_match_the_document(seeded):
    email = {"link_id": seeded.email_link}
    bearer = {"Authorization": f"Bearer {seeded.email_token}"}
    assert _validated(seeded, "GET", "/compute/v1/share/{link_id}", path_parameters=email,
                      headers=bearer).status_code == 200
    assert _validated(seeded, "GET", "/compute/v1/share/{link_id}",
                      path_parameters=email).status_code == 401
    forged = {"Authorization": "Bearer " + seeded.email_token[:-4] + "AAAA"}
    assert _validated(seeded, "GET", "/compute/v1/share/{link_id}", path_parameters=email,
                      headers=forged).status_code == 401


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 200),
    ({"Range": "bytes=0-9"}, 206),
    ({"Range": "bytes=999999999-"}, 416),
    ({"If-None-Match": "*"}, 304),
    # Found by hand: Werkzeug answered 412 with the file as its body, not the envelope.
    ({"If-Match": '"not-the-etag"'}, 412),
])
def test_artifact_downloads_match_the_document(seeded, headers, status):
    artifact_id, expires, signature = seeded.artifacts[0]
    response = _validated(seeded, "GET", "/compute/v1/artifacts/{artifact_id}",
                          path_parameters={"artifact_id": artifact_id},
                          query={"expires": expires, "signature": signature},
                          headers=headers)
    assert response.status_code == status


def test_an_email_with_a_lone_surrogate_is_named_invalid(client, org):
    # Found by hand: pydantic could not render the message holding the surrogate, and
    # answered "Value error, 'utf-8' codec can't encode character ...".
    expires = (utcnow() + timedelta(days=30)).isoformat() + "Z"
    body = json.dumps({  # ensure_ascii: the surrogate travels as the escape \\ud800
        "expires_at": expires, "pipeline_ids": ["pl_x"],
        "access_parameters": {"access_mode": "email", "allowed_emails": ["a@b\ud800.com"]},
    })
    response = client.post("/compute/v1/share-links", data=body,
                           headers={**org.headers, "Content-Type": "application/json"})
    assert response.status_code == 400, response.data
    assert "is not a valid e-mail address" in response.json["message"]
    assert "codec" not in response.json["message"]
