"""The OpenAPI 3.1 document of the compute API, generated from the registered blueprints.

Every operation of every ``ApiBlueprint`` registered on the current app appears with the
very pydantic models that validate its body and query and serialise its response, so the
document cannot drift from what the service enforces. Errors share one envelope schema.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from flask import Flask, current_app, jsonify
from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema

from app.service.api import ApiBlueprint, EndpointSpec, registered_specs

bp = ApiBlueprint("openapi", __name__)

REF_TEMPLATE = "#/components/schemas/{model}"
_RULE_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")

DESCRIPTION = """\
Share links, administration (workspaces, API keys, usage), id-cursor pagination, and the
SDK's read-only access to pipeline runs, their results and predictions.

* Authenticate with `x-api-key`. Admin endpoints need an admin key; share-link endpoints
  accept admin and workspace keys. Reading through a share link needs no key; email-mode
  links need `Authorization: Bearer <JWT>` issued by the viewer.
* Success is `200` with a JSON body. Every error is `{statusCode, error, message}`; the
  message names the offending field.
* Lists are ordered by id (creation order); `limit` defaults to 20 (100 on share results),
  at most 1000; `after_id` with `before_id` is a 400. Usage pages use the opaque `page`.
* Test mode: every pipeline, prediction, result and share link is live or test
  (`livemode`). A test key (`mode: test`) reads and creates only test-mode resources, a live
  key only live ones (the other mode's ids are 404s, and 400s in a new share link). On its
  first use a test key's workspace (an admin test key's: the default workspace) gets
  synthetic test-mode pipelines of all seven types and both predictions, ready to list and
  share. Every record a test-mode link exposes says `livemode: false` and the viewer marks
  its pages as test data. Test-mode activity records no usage.
* Records are the SDK's (`boltz-api` 0.50.0). Fields and resources beyond the SDK say
  "Extension (beyond the SDK)" in their descriptions; clients need none of them.
"""


class ErrorEnvelope(BaseModel):
    """The body of every error response."""

    model_config = ConfigDict(extra="forbid")

    statusCode: int  # camelCase: the wire name
    error: str
    message: str


def openapi_path(spec: EndpointSpec) -> str:
    """Convert the Flask rule of ``spec`` to an OpenAPI path: ``<x>`` becomes ``{x}``."""
    return spec.prefix + _RULE_PARAM.sub(r"{\1}", spec.path)


def _operation_id(spec: EndpointSpec) -> str:
    words = re.findall(r"[A-Za-z0-9]+", _RULE_PARAM.sub(r"\1", spec.path))
    return "_".join([spec.method.lower(), *words])


def _statuses(spec: EndpointSpec) -> list[int]:
    """Return the documented statuses besides 200: errors, and extras such as 206."""
    statuses = {500}
    if spec.body or spec.query or _RULE_PARAM.search(spec.path):
        statuses.add(400)
    if spec.auth in ("admin", "any", "share"):
        statuses.update((401, 403))
    if _RULE_PARAM.search(spec.path) or spec.auth == "share":
        statuses.add(404)
    if spec.body:
        statuses.add(413)
    statuses.update(spec.extra_statuses)
    return sorted(statuses)


def _security(spec: EndpointSpec) -> list[dict]:
    if spec.auth in ("admin", "any"):
        return [{"ApiKeyAuth": []}]
    if spec.auth == "share":
        # No credential for public links; a bearer JWT for email-mode links.
        return [{}, {"ShareToken": []}]
    return []


def _query_parameters(schema: dict, components: dict) -> list[dict]:
    """Split a query model's object schema into OpenAPI query parameters."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    required = set(schema.get("required", []))
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        parameter = {"name": name, "in": "query", "required": name in required}
        if "description" in prop:
            parameter["description"] = prop.pop("description")
        prop.pop("title", None)
        parameter["schema"] = prop
        if name.endswith("[]"):
            # The SDK repeats the key: applications[]=a&applications[]=b.
            parameter.update(style="form", explode=True)
        parameters.append(parameter)
    return parameters


def _response_schema(spec: EndpointSpec, refs: dict) -> dict:
    """Return the 200 schema: the model's reference, or ``anyOf`` when several are declared."""
    schemas = [refs[(model, "serialization")] for model in spec.response_models()]
    return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}


def _operation(spec: EndpointSpec, refs: dict, components: dict, error_ref: dict) -> dict:
    """Return the OpenAPI operation object of one endpoint."""
    operation: dict = {
        "operationId": _operation_id(spec),
        "summary": spec.summary,
        "tags": [spec.tag],
        "security": _security(spec),
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in _RULE_PARAM.findall(spec.path)
        ],
    }
    if spec.description:
        operation["description"] = spec.description
    if spec.query is not None:
        operation["parameters"] += _query_parameters(
            refs[(spec.query, "validation")], components
        )
    if spec.body is not None:
        operation["requestBody"] = {
            # An empty body reads as {}: the body is required only if one of its fields is.
            "required": bool(spec.body.model_json_schema().get("required")),
            "content": {"application/json": {"schema": refs[(spec.body, "validation")]}},
        }
    responses: dict[str, dict] = {"200": {"description": "OK"}}
    if spec.response is not None:
        schema = _response_schema(spec, refs)
        responses["200"]["content"] = {"application/json": {"schema": schema}}
    for status in _statuses(spec):
        responses[str(status)] = {"description": HTTPStatus(status).phrase}
        if status >= 400:
            responses[str(status)]["content"] = {"application/json": {"schema": error_ref}}
    operation["responses"] = responses
    return operation


def build_document(app: Flask) -> dict:
    """Build the whole document from the API blueprints registered on ``app``."""
    specs = registered_specs(app)
    wanted: list[tuple[type[BaseModel], str]] = [(ErrorEnvelope, "serialization")]
    for spec in specs:
        wanted += [(m, "validation") for m in (spec.body, spec.query) if m is not None]
        wanted += [(m, "serialization") for m in spec.response_models()]
    refs, defs = models_json_schema(list(dict.fromkeys(wanted)), ref_template=REF_TEMPLATE)
    components = defs.get("$defs", {})
    error_ref = refs[(ErrorEnvelope, "serialization")]
    paths: dict[str, dict] = {}
    for spec in specs:
        paths.setdefault(openapi_path(spec), {})[spec.method.lower()] = _operation(
            spec, refs, components, error_ref)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Compute API", "version": "1.0.0", "description": DESCRIPTION},
        "tags": [{"name": tag} for tag in dict.fromkeys(spec.tag for spec in specs)],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "ApiKeyAuth": {"type": "apiKey", "in": "header", "name": "x-api-key"},
                "ShareToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            },
        },
    }


@bp.operation("GET", "/openapi.json", summary="This OpenAPI document", tag="Meta",
              auth="none", response=None)
def openapi_document():
    """Serve the OpenAPI document (built once per app: its blueprints are fixed by then)."""
    document = current_app.extensions.get("openapi_document")
    if document is None:
        document = current_app.extensions["openapi_document"] = build_document(current_app)
    return jsonify(document)
