"""The error contract of every endpoint of ``routes.BLUEPRINTS``, including ones added later.

Bad input of every kind (malformed or non-object JSON, wrong types, unknown fields,
oversized bodies, bad dates and cursors, odd path ids, wrong methods, missing or wrong
keys) must answer a 4xx with exactly ``{statusCode, error, message}``, never a 500, and
must change nothing in the database. The cases are derived from each endpoint's pydantic
models, so a new endpoint is covered as soon as it is registered.

The module's tests share one app and organization: each checks that its rejected requests
left every row as it found it (``caller``), so none sees another's writes.
"""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from pydantic import BaseModel, ValidationError

from app.domain import MAX_ID_LENGTH
from app.platform.db import get_engine
from app.service.api import EndpointSpec, query_dict, specs_of
from app.service.routes import BLUEPRINTS
from app.store import schema
from tests.support.admin import make_key
from tests.support.apps import OrgFixture, make_org, make_test_app
from tests.support.databases import dispose_engines, migrated_database

SPECS = specs_of(BLUEPRINTS)
IDS = [f"{s.method} {s.path}" for s in SPECS]
BODY_SPECS = [s for s in SPECS if s.body is not None]
QUERY_SPECS = [s for s in SPECS if s.query is not None]
KEYED_SPECS = [s for s in SPECS if s.auth in ("admin", "any")]
PATH_SPECS = [s for s in SPECS if "<" in s.path]
_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")

WRONG_VALUES = [12345, 1.5, True, "a-string", [], {}, None, [12345], [{}], {"k": 1}, -1, 0,
                "", "2026-13-45T99:00:00Z", "not-a-date", ["a-string"] * 1001]
BAD_QUERY_VALUES = ["abc", "1.5", "-1", "0", "1e3", "99999999999999999999999", "", "!!!",
                    "not-a-date", "2026-02-30T00:00:00Z", "2026-04-01T00:00:00", "NOT_A_VALUE",
                    "x" * 3000, "\x00", "é"]
# An id cursor (after_id, before_id) may be any id up to its length (app.service.pagination);
# the usage report's page cursor is signed.
BAD_CURSORS = {"after_id": ["a" * (MAX_ID_LENGTH + 1), "a" * 3000, "\x00"],
               "before_id": ["a" * (MAX_ID_LENGTH + 1), "a" * 3000, "\x00"],
               "page": ["!!!", "a" * 3000, "\x00", "../../etc", "WzAsMF0.AAAA"]}
BAD_PATH_IDS = ["x", "a" * 300, "..", "%00", "%2e%2e", "ws_" + "Z" * 26, "é", "' OR 1=1 --"]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
CURSOR_NAMES = ("after_id", "before_id", "page")


def query_names(spec: EndpointSpec) -> set[str]:
    """The query parameter names of an endpoint."""
    return {f.alias or k for k, f in spec.query.model_fields.items()} if spec.query else set()


CURSOR_SPECS = [s for s in QUERY_SPECS if query_names(s) & set(CURSOR_NAMES)]


def ids_of(specs):
    return [f"{s.method} {s.path}" for s in specs]


def url_of(spec: EndpointSpec, value: str = "nonexistent") -> str:
    """The endpoint's URL with every path parameter set to ``value``."""
    return spec.prefix + _PARAM.sub(value, spec.path)


def snapshot(app) -> list:
    """Every row of every table, except the key-use time that authentication records."""
    rows = []
    with get_engine(app).connect() as conn:
        for table in schema.metadata.sorted_tables:
            columns = [c for c in table.c if not (table is schema.api_keys
                                                  and c.name == "last_used_at")]
            result = conn.execute(sa.select(*columns))
            rows.append((table.name, sorted(repr(tuple(r)) for r in result)))
    return rows


def assert_4xx(response, status: int | None = None) -> dict:
    """Assert a 4xx JSON envelope (of ``status`` if given)."""
    assert 400 <= response.status_code < 500, (response.status_code, response.data[:300])
    if status is not None:
        assert response.status_code == status, (response.status_code, response.data[:300])
    assert response.mimetype == "application/json", response.data[:300]
    body = response.get_json()
    assert set(body) == {"statusCode", "error", "message"}, body
    assert body["statusCode"] == response.status_code
    assert isinstance(body["error"], str) and body["error"]
    assert isinstance(body["message"], str) and body["message"]
    return body


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One app on a fresh migrated database for the module's tests."""
    root = tmp_path_factory.mktemp("errors")
    url, drop = migrated_database(root)
    application = make_test_app(url, root)
    yield application
    dispose_engines(application)
    drop()


@pytest.fixture(scope="module")
def org(app) -> OrgFixture:
    """The organization whose admin key the module's calls carry."""
    return make_org(app)


@pytest.fixture
def workspace_key(app, org) -> str:
    """A workspace key of ``org``."""
    return make_key(app, org)


@pytest.fixture
def caller(app, client, org):
    """Send a request to an endpoint with the key it needs; check the DB is unchanged."""
    before = snapshot(app)

    def send(spec: EndpointSpec, *, url: str | None = None, method: str | None = None,
             headers: dict | None = None, **kwargs):
        if headers is None:
            headers = org.headers if spec.auth in ("admin", "any") else {}
        return client.open(url or url_of(spec), method=method or spec.method,
                           headers=headers, **kwargs)

    yield send
    assert snapshot(app) == before, "a rejected request changed the database"


def field_rejects(model: type[BaseModel], data: dict, alias: str) -> bool:
    """Tell whether ``model`` rejects ``data`` because of the field ``alias``."""
    try:
        model.model_validate(data)
    except ValidationError as error:
        return any(err["loc"][:1] == (alias,) for err in error.errors())
    return False


def examples(model: type[BaseModel]) -> dict:
    """Valid values of a model's required fields, from their documented examples."""
    data = {}
    for name, info in model.model_fields.items():
        if info.is_required() and info.examples:
            data[info.alias or name] = info.examples[0]
    return data


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_wrong_methods_are_405(caller, spec):
    registered = {s.method for s in SPECS if s.path == spec.path}
    for method in sorted(set(METHODS) - registered):
        response = caller(spec, method=method, data="{}", content_type="application/json")
        assert_4xx(response, 405)
        allowed = {m.strip() for m in response.headers["Allow"].split(",")}
        assert registered <= allowed


@pytest.mark.parametrize("spec", BODY_SPECS, ids=ids_of(BODY_SPECS))
def test_malformed_and_non_object_json_is_400(caller, spec):
    for raw in ['{"name": ', "{'single': 'quotes'}", "nul", "[1, 2", '{"a": 1}}',
                '{"a": NaN', "[]", '"a string"', "12", "null", "true", "[{}]"]:
        assert_4xx(caller(spec, data=raw, content_type="application/json"), 400)
    assert_4xx(caller(spec, data=b'{"name": "\xff\xfe"}', content_type="application/json"), 400)
    # JSON sent as something else is refused rather than guessed at.
    assert_4xx(caller(spec, data="{}", content_type="text/plain"), 400)
    assert_4xx(caller(spec, data="a=1", content_type="application/x-www-form-urlencoded"), 400)


@pytest.mark.parametrize("spec", BODY_SPECS, ids=ids_of(BODY_SPECS))
def test_wrong_types_are_400(caller, spec):
    base = examples(spec.body)
    tried = 0
    for name, info in spec.body.model_fields.items():
        alias = info.alias or name
        for value in WRONG_VALUES:
            data = {**base, alias: value}
            if not field_rejects(spec.body, data, alias):
                continue
            tried += 1
            body = assert_4xx(caller(spec, json=data), 400)
            if base.keys() >= {k for k, f in spec.body.model_fields.items() if f.is_required()}:
                assert alias in body["message"], (alias, value, body)
    assert tried, "no wrong value found for any field"


@pytest.mark.parametrize("spec", BODY_SPECS, ids=ids_of(BODY_SPECS))
def test_unknown_fields_are_400(caller, spec):
    data = {**examples(spec.body), "definitely_not_a_field": 1}
    with pytest.raises(ValidationError) as caught:
        spec.body.model_validate(data)
    assert any(e["type"] == "extra_forbidden" for e in caught.value.errors()), \
        "body models must forbid unknown fields"
    assert_4xx(caller(spec, json=data), 400)


@pytest.mark.parametrize("spec", BODY_SPECS, ids=ids_of(BODY_SPECS))
def test_nul_characters_are_400(caller, spec):
    # PostgreSQL text cannot hold NUL; it must be refused before it reaches the database.
    base = examples(spec.body)
    for name, info in spec.body.model_fields.items():
        alias = info.alias or name
        for value in ("a\x00b", ["a\x00b"], {"k\x00": "v"}):
            assert_4xx(caller(spec, json={**base, alias: value}), 400)


@pytest.mark.parametrize("spec", BODY_SPECS, ids=ids_of(BODY_SPECS))
def test_huge_body_is_413(app, caller, spec):
    limit = app.config["MAX_CONTENT_LENGTH"]
    raw = json.dumps({"name": "x" * limit})
    body = assert_4xx(caller(spec, data=raw, content_type="application/json"), 413)
    assert "too large" in body["message"]


def _query_is_valid(app, model: type[BaseModel], params: dict) -> bool:
    with app.test_request_context(query_string=params):
        try:
            model.model_validate(query_dict(model))
        except ValidationError:
            return False
    return True


@pytest.mark.parametrize("spec", QUERY_SPECS, ids=ids_of(QUERY_SPECS))
@pytest.mark.dialect  # accepted NUL/non-ASCII values reach queries
def test_bad_query_values_are_400(app, caller, spec):
    base = examples(spec.query)
    if _query_is_valid(app, spec.query, base):
        # The baseline itself is accepted (whatever the path ids then lead to).
        response = caller(spec, query_string=base)
        assert response.status_code != 400 and response.status_code < 500, response.data[:300]
    tried = 0
    for name, info in spec.query.model_fields.items():
        alias = info.alias or name
        for value in BAD_QUERY_VALUES:
            params = {**base, alias: value}
            if _query_is_valid(app, spec.query, params):
                # Acceptable to the model; still never a 500.
                response = caller(spec, query_string=params)
                assert response.status_code < 500, (alias, value, response.data[:300])
                if response.status_code >= 400:
                    assert_4xx(response)
                continue
            tried += 1
            assert_4xx(caller(spec, query_string=params), 400)
    assert tried, "no bad value found for any query parameter"


@pytest.mark.parametrize("spec", CURSOR_SPECS, ids=ids_of(CURSOR_SPECS))
def test_bad_cursors_are_400(app, caller, spec):
    cursors = [n for n in CURSOR_NAMES if n in query_names(spec)]
    base = examples(spec.query)
    for name in cursors:
        for value in BAD_CURSORS[name]:
            assert_4xx(caller(spec, query_string={**base, name: value}), 400)


@pytest.mark.parametrize("spec", PATH_SPECS, ids=ids_of(PATH_SPECS))
@pytest.mark.dialect  # a NUL in a queried id is an error on PostgreSQL
def test_odd_path_ids_are_4xx(caller, spec):
    extra = {}
    if spec.body is not None:
        extra = {"json": examples(spec.body)}
    for value in BAD_PATH_IDS:
        response = caller(spec, url=url_of(spec, value), **extra)
        assert_4xx(response)


@pytest.mark.parametrize("spec", KEYED_SPECS, ids=ids_of(KEYED_SPECS))
def test_missing_and_wrong_keys_are_401(caller, spec, org):
    for headers in ({}, {"x-api-key": ""}, {"x-api-key": "bz_live_" + "A" * 43},
                    {"x-api-key": org.admin_key + "x"}, {"x-api-key": "é" * 10},
                    {"Authorization": f"Bearer {org.admin_key}"}):
        assert_4xx(caller(spec, headers=headers, json={}), 401)


@pytest.mark.parametrize("spec", [s for s in KEYED_SPECS if s.auth == "admin"],
                         ids=ids_of([s for s in KEYED_SPECS if s.auth == "admin"]))
def test_workspace_keys_are_403_on_admin_endpoints(workspace_key, caller, spec):
    # ``workspace_key`` comes first so that the key exists before the caller's snapshot.
    body = examples(spec.body) if spec.body else None
    assert_4xx(caller(spec, headers={"x-api-key": workspace_key}, json=body), 403)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_unknown_routes_below_an_endpoint_are_404_or_405(caller, spec):
    # 405 when the longer path happens to match another route with other methods.
    response = caller(spec, url=url_of(spec) + "/no-such-thing")
    assert assert_4xx(response)["statusCode"] in (404, 405)
