"""Endpoint declaration: one decorator validates requests, enforces and serialises responses.

Each resource module owns an ``ApiBlueprint`` (``url_prefix`` ``/compute/v1``) and
declares its routes with ``@bp.operation(method, path, ...)``, naming the pydantic models
of the body, the query and the 200 response. The decorator

1. authenticates (``auth``), refuses NUL characters, validates ``body=``/``query=`` and
   passes the models to the view as keyword arguments;
2. checks what the view returns. With ``response=Model`` (or a tuple of models, when the
   shape depends on the data) the view must return an instance of one of them; anything
   else (a dict, another model) raises ``TypeError``, which the error handler logs and
   answers with the 500 envelope. The instance is serialised by pydantic straight into a
   ``200 application/json`` response with the endpoint's ``headers``. With
   ``response=None`` the view builds its own ``Response`` (file streams, the OpenAPI
   document) and must return one;
3. records an ``EndpointSpec`` on the blueprint: ``openapi.py`` builds the document from
   the specs of the blueprints registered on the app, so the documentation cannot drift
   from what is enforced.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from flask import Blueprint, Flask, Response, request
from pydantic import BaseModel, ValidationError

from app.service.auth import authenticate
from app.service.errors import bad_request
from app.service.wire import Serialised

API_PREFIX = "/compute/v1"
JSON_MIMETYPE = "application/json"

ResponseModels = type[BaseModel] | tuple[type[BaseModel], ...] | None


@dataclass(frozen=True)
class EndpointSpec:
    """What the OpenAPI document says about one route."""

    method: str
    path: str  # Flask rule below the prefix, e.g. /share-links/<link_id>
    summary: str
    tag: str
    auth: str  # "admin", "any" (admin or workspace key), "share" (link id, maybe JWT), "none"
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: ResponseModels = None
    description: str = ""
    extra_statuses: tuple[int, ...] = field(default_factory=tuple)
    prefix: str = API_PREFIX

    def response_models(self) -> tuple[type[BaseModel], ...]:
        """Return the models a 200 answer may be an instance of (none: a raw Response)."""
        if self.response is None:
            return ()
        return self.response if isinstance(self.response, tuple) else (self.response,)


class ApiBlueprint(Blueprint):
    """A blueprint of the compute API with the specs of its operations in ``specs``."""

    def __init__(self, name: str, import_name: str):
        super().__init__(name, import_name, url_prefix=API_PREFIX)
        self.specs: list[EndpointSpec] = []

    def operation(
        self,
        method: str,
        path: str,
        *,
        summary: str,
        tag: str,
        auth: str,
        response: ResponseModels,
        body: type[BaseModel] | None = None,
        query: type[BaseModel] | None = None,
        headers: Mapping[str, str] | None = None,
        description: str = "",
        extra_statuses: tuple[int, ...] = (),
    ) -> Callable:
        """Register a route; see the module docstring for the contract with the view."""
        spec = EndpointSpec(method, path, summary, tag, auth, body, query, response,
                            description, extra_statuses, self.url_prefix or "")
        self.specs.append(spec)

        def decorator(view: Callable) -> Callable:
            answer = _answer(view.__qualname__, spec.response_models(), dict(headers or {}))

            @functools.wraps(view)
            def wrapper(**kwargs):
                _prepare(spec, kwargs)
                return answer(view(**kwargs))

            # No automatic OPTIONS: the API answers an unsupported method with the JSON 405
            # envelope, not Flask's empty HTML 200 (there is no CORS preflight to serve).
            self.add_url_rule(path, endpoint=view.__name__, view_func=wrapper,
                              methods=[method], provide_automatic_options=False)
            return wrapper

        return decorator


def _prepare(spec: EndpointSpec, kwargs: dict) -> None:
    """Authenticate, refuse NULs, and add the validated ``body``/``query`` to ``kwargs``."""
    # Authentication comes first: a caller without a key learns nothing from
    # validation messages.
    if spec.auth in ("admin", "any"):
        authenticate(require_admin=spec.auth == "admin")
    for name, value in kwargs.items():
        reject_nul(value, name)
    for name, values in request.args.lists():
        reject_nul(name, "query")
        reject_nul(values, name)
    if spec.body is not None:
        kwargs["body"] = validate_body(spec.body)
    if spec.query is not None:
        kwargs["query"] = validate_query(spec.query)


def _answer(view_name: str, models: tuple[type[BaseModel], ...],
            headers: dict[str, str]) -> Callable[[object], Response]:
    """Return the function that turns what ``view_name`` returned into its Response."""

    def raw(result: object) -> Response:
        if not isinstance(result, Response):
            raise TypeError(f"{view_name} must return a Response (response=None), "
                            f"not {type(result).__name__}")
        return result

    def serialised(result: object) -> Response:
        if isinstance(result, Serialised) and result.model in models:
            # Written from stored JSON in the model's shape (``result_wire``).
            return Response(result.body, status=200, headers=headers,
                            mimetype=JSON_MIMETYPE)
        if not isinstance(result, models):
            expected = " or ".join(model.__name__ for model in models)
            raise TypeError(f"{view_name} returned {type(result).__name__}, "
                            f"not its declared response model {expected}")
        # Bytes straight from pydantic-core: no dict copy, no second encoding pass.
        body = result.__pydantic_serializer__.to_json(result)
        return Response(body, status=200, headers=headers, mimetype=JSON_MIMETYPE)

    return serialised if models else raw


def specs_of(blueprints: Iterable[Blueprint]) -> list[EndpointSpec]:
    """Return the specs of the API blueprints among ``blueprints``, in order."""
    return [spec for bp in blueprints if isinstance(bp, ApiBlueprint) for spec in bp.specs]


def registered_specs(app: Flask) -> list[EndpointSpec]:
    """Return the specs of every API blueprint registered on ``app``."""
    return specs_of(app.blueprints.values())


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
    if mimetype != JSON_MIMETYPE and not mimetype.endswith("+json"):
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
