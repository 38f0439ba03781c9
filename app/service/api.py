"""Endpoint registration: one decorator validates requests and documents them.

``endpoint(...)`` registers a Flask route on the service blueprint and records the
pydantic models of its body, query and response. Views receive validated models; the
OpenAPI document (``openapi.py``) is generated from the very same records, so the
documentation cannot drift from what is enforced.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from flask import Blueprint, request
from pydantic import BaseModel, ValidationError

from app.service.auth import authenticate
from app.service.errors import bad_request

bp = Blueprint("service", __name__, url_prefix="/compute/v1")


@dataclass(frozen=True)
class EndpointSpec:
    """What the OpenAPI document says about one route."""

    method: str
    path: str  # Flask rule, e.g. /share-links/<link_id>
    summary: str
    tag: str
    auth: str  # "admin", "any" (admin or workspace key), "share" (link id, maybe JWT), "none"
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    description: str = ""
    extra_statuses: tuple[int, ...] = field(default_factory=tuple)


REGISTRY: list[EndpointSpec] = []


def format_validation_error(error: ValidationError) -> str:
    """Turn pydantic's first error into one sentence that names the field."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"] if part not in ("body", "query"))
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "is not a recognised field"
    elif first["type"] == "missing":
        message = "is required"
    return f"{location}: {message}" if location else message


def reject_nul(value: object, where: str) -> None:
    """Refuse NUL characters anywhere in ``value``: PostgreSQL text cannot store them."""
    if isinstance(value, str):
        if "\x00" in value:
            raise bad_request(f"{where}: must not contain NUL characters")
    elif isinstance(value, dict):
        for key, item in value.items():
            reject_nul(key, where)
            reject_nul(item, f"{where}.{key}" if where != "body" else str(key))
    elif isinstance(value, list):
        for item in value:
            reject_nul(item, where)


def read_json_body() -> object:
    """Return the parsed JSON body; an empty body reads as ``{}``."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    mimetype = request.mimetype or ""
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise bad_request("Content-Type must be application/json")
    try:
        data = json.loads(raw)
        reject_nul(data, "body")
    except (ValueError, UnicodeDecodeError):
        raise bad_request("Request body is not valid JSON") from None
    except RecursionError:  # e.g. [[[[...]]]] a few thousand levels deep
        raise bad_request("Request body is nested too deeply") from None
    return data


def validate_body(model: type[BaseModel]) -> BaseModel:
    """Parse and validate the JSON body against ``model``."""
    data = read_json_body()
    if not isinstance(data, dict):
        raise bad_request("Request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise bad_request(format_validation_error(error)) from None


def query_dict(model: type[BaseModel]) -> dict:
    """Collect query parameters for ``model``: repeated or ``name[]`` keys become lists.

    The SDK sends arrays as ``applications[]=a&applications[]=b``; a field whose alias
    ends in ``[]`` or whose annotation is a list gets every value, others the last one.
    """
    data: dict = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        values = request.args.getlist(key)
        if key.endswith("[]"):
            values = values + request.args.getlist(key[:-2])
        if not values:
            continue
        wants_list = key.endswith("[]") or "list" in str(info.annotation).lower()
        data[key] = values if wants_list else values[-1]
    return data


def validate_query(model: type[BaseModel]) -> BaseModel:
    """Validate the query string against ``model``; unknown parameters are ignored."""
    try:
        return model.model_validate(query_dict(model))
    except ValidationError as error:
        raise bad_request(format_validation_error(error)) from None


def endpoint(
    method: str,
    path: str,
    *,
    summary: str,
    tag: str,
    auth: str,
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    response: type[BaseModel] | None = None,
    description: str = "",
    extra_statuses: tuple[int, ...] = (),
) -> Callable:
    """Register a route; the view gets ``body=`` and/or ``query=`` validated models."""
    spec = EndpointSpec(method, path, summary, tag, auth, body, query, response,
                        description, extra_statuses)
    REGISTRY.append(spec)

    def decorator(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(**kwargs):
            # Authentication comes first: a caller without a key learns nothing from
            # validation messages.
            if auth in ("admin", "any"):
                authenticate(require_admin=auth == "admin")
            for name, value in kwargs.items():
                reject_nul(value, name)
            for name, values in request.args.lists():
                reject_nul(name, "query")
                reject_nul(values, name)
            if body is not None:
                kwargs["body"] = validate_body(body)
            if query is not None:
                kwargs["query"] = validate_query(query)
            return view(**kwargs)

        # No automatic OPTIONS: the API answers an unsupported method with the JSON 405
        # envelope, not Flask's empty HTML 200 (there is no CORS preflight to serve).
        bp.add_url_rule(path, endpoint=view.__name__, view_func=wrapper, methods=[method],
                        provide_automatic_options=False)
        return wrapper

    return decorator
