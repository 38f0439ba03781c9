"""The OpenAPI document: valid 3.1, complete, and describing what the service answers."""

from __future__ import annotations

import jsonschema
import pytest
from openapi_spec_validator import validate

from app.service.api import specs_of
from app.service.openapi import openapi_path
from app.service.routes import BLUEPRINTS
from tests.support.admin import assert_envelope

SPECS = specs_of(BLUEPRINTS)

URL = "/compute/v1/openapi.json"


@pytest.fixture
def document(client):
    response = client.get(URL)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.json


@pytest.mark.slow
def test_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_needs_no_key_and_ignores_a_bad_one(client):
    assert client.get(URL, headers={"x-api-key": "garbage"}).status_code == 200


def test_every_registered_endpoint_is_documented(document):
    assert SPECS
    for spec in SPECS:
        operation = document["paths"][openapi_path(spec)][spec.method.lower()]
        assert operation["summary"] == spec.summary
        if spec.body is not None:
            assert "requestBody" in operation, spec.path
        if spec.query is not None:
            names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
            aliases = {f.alias or n for n, f in spec.query.model_fields.items()}
            assert names == aliases, spec.path


def test_every_service_route_is_documented(app, document):
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    service = app.extensions["service_app"]
    names = {bp.name for bp in BLUEPRINTS}
    assert set(service.blueprints) >= names
    routes = [rule for rule in service.url_map.iter_rules()
              if rule.endpoint.partition(".")[0] in names]
    assert len(routes) == len(SPECS)
    for rule in routes:
        path = rule.rule.replace("<", "{").replace(">", "}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method.lower()) in documented, (path, method)


def test_operation_ids_are_unique(document):
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_path_parameters_match_the_template(document):
    for path, item in document["paths"].items():
        for operation in item.values():
            declared = {p["name"] for p in operation["parameters"] if p["in"] == "path"}
            assert declared == {part[1:-1] for part in path.split("/") if part.startswith("{")}


def test_security_follows_the_key_kind(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes["ApiKeyAuth"] == {"type": "apiKey", "in": "header", "name": "x-api-key"}
    assert schemes["ShareToken"]["scheme"] == "bearer"
    for spec in SPECS:
        operation = document["paths"][openapi_path(spec)][spec.method.lower()]
        if spec.auth in ("admin", "any"):
            assert operation["security"] == [{"ApiKeyAuth": []}]
            assert {"401", "403"} <= set(operation["responses"])
        elif spec.auth == "none":
            assert operation["security"] == []


def test_errors_use_the_envelope_schema(document):
    envelope = document["components"]["schemas"]["ErrorEnvelope"]
    assert set(envelope["required"]) == {"statusCode", "error", "message"}
    for item in document["paths"].values():
        for operation in item.values():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}


def test_usage_arrays_are_documented_as_the_sdk_sends_them(document):
    parameters = {p["name"]: p for p in
                  document["paths"]["/compute/v1/admin/usage"]["get"]["parameters"]}
    for name in ("applications[]", "workspace_ids[]", "group_by[]"):
        assert parameters[name]["schema"]["type"] == "array"
        assert parameters[name]["explode"] is True
    assert parameters["starting_at"]["required"] is True
    assert parameters["limit"]["schema"]["maximum"] == 1000


def test_body_limits_are_the_enforced_ones(document):
    schemas = document["components"]["schemas"]
    retention = schemas["DataRetention"]
    assert retention["properties"]["value"]["exclusiveMinimum"] == 0
    assert retention["additionalProperties"] is False
    key = schemas["ApiKeyCreate"]
    assert key["properties"]["allowed_ips"]["maxItems"] == 100
    assert key["properties"]["expires_in_days"]["anyOf"][0]["maximum"] == 3650
    assert key["required"] == ["name"]


def conforms(document, schema_ref: dict, instance) -> None:
    """Validate ``instance`` against a schema of the document (JSON Schema 2020-12)."""
    schema = {**schema_ref, "components": document["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


def test_real_answers_conform_to_the_document(client, org, document):
    paths = document["paths"]

    def ok_schema(path, method):
        return paths[path][method]["responses"]["200"]["content"]["application/json"]["schema"]

    created = client.post("/compute/v1/admin/workspaces", json={"name": "Doc"},
                          headers=org.headers).json
    conforms(document, ok_schema("/compute/v1/admin/workspaces", "post"), created)
    listed = client.get("/compute/v1/admin/workspaces", headers=org.headers).json
    conforms(document, ok_schema("/compute/v1/admin/workspaces", "get"), listed)
    key = client.post("/compute/v1/admin/api-keys", json={"name": "k"}, headers=org.headers).json
    conforms(document, ok_schema("/compute/v1/admin/api-keys", "post"), key)
    keys = client.get("/compute/v1/admin/api-keys", headers=org.headers).json
    conforms(document, ok_schema("/compute/v1/admin/api-keys", "get"), keys)
    usage = client.get("/compute/v1/admin/usage?starting_at=2026-04-01T00:00:00Z"
                       "&ending_at=2026-04-02T00:00:00Z&window_size=DAY", headers=org.headers).json
    conforms(document, ok_schema("/compute/v1/admin/usage", "get"), usage)
    error = assert_envelope(client.get("/compute/v1/admin/workspaces/ws_x", headers=org.headers),
                            404)
    conforms(document, {"$ref": "#/components/schemas/ErrorEnvelope"}, error)
    with pytest.raises(jsonschema.ValidationError):
        conforms(document, {"$ref": "#/components/schemas/ErrorEnvelope"}, {**error, "x": 1})
