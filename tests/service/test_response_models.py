"""Responses come from models: the endpoint decorator enforces and serialises them.

A view that returns anything but its declared model (a dict, another model) is a logged
500 envelope; every real endpoint's 200 body is exactly what its declared model holds;
optional fields are omitted, never null, while null-by-contract fields stay null; and the
OpenAPI document lists the operations of the blueprints registered on the app.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from itertools import count

import pytest
from pydantic import BaseModel

from app import create_service_app
from app.platform.db import get_engine
from app.service import pipelines, predictions
from app.service.api import ApiBlueprint, EndpointSpec, specs_of
from app.service.routes import BLUEPRINTS
from app.service.wire import Timestamp, omitted_if_none
from app.store.usage import add_usage_records
from tests.support import factories
from tests.support.factories import assert_envelope

SPECS = specs_of(BLUEPRINTS)
WHEN = datetime(2026, 4, 1, 12, 30)


class Thing(BaseModel):
    """A throwaway response model."""

    id: str
    made_at: Timestamp
    gone_at: Timestamp | None
    note: str | None = omitted_if_none()


class Other(BaseModel):
    """Another throwaway model: the wrong one for a view declared to return Thing."""

    id: str


def throwaway_blueprint() -> ApiBlueprint:
    """A blueprint whose views return right and wrong things."""
    bp = ApiBlueprint("throwaway", __name__)
    common = {"tag": "Test", "auth": "none"}

    @bp.operation("GET", "/test/right", summary="Right", response=Thing,
                  headers={"Cache-Control": "private, no-store"}, **common)
    def right():
        return Thing(id="t1", made_at=WHEN, gone_at=None, note=None)

    @bp.operation("GET", "/test/noted", summary="Noted", response=Thing, **common)
    def noted():
        return Thing(id="t2", made_at=WHEN, gone_at=WHEN, note="hello")

    @bp.operation("GET", "/test/dict", summary="Dict", response=Thing, **common)
    def a_dict():
        return {"id": "t3", "made_at": "2026-04-01T12:30:00.000Z", "gone_at": None}

    @bp.operation("GET", "/test/other", summary="Other", response=Thing, **common)
    def other_model():
        return Other(id="t4")

    @bp.operation("GET", "/test/raw", summary="Raw", response=None, **common)
    def not_a_response():
        return Thing(id="t5", made_at=WHEN, gone_at=None)

    return bp


@pytest.fixture
def service(db_url, tmp_path):
    """A service app of its own, with the throwaway blueprint registered too."""
    application = create_service_app(
        {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-secret",
         "ARTIFACT_DIR": str(tmp_path / "artifacts")},
        instance_path=str(tmp_path / "instance"),
    )
    application.register_blueprint(throwaway_blueprint())
    yield application
    get_engine(application).dispose()


def test_a_declared_model_is_serialised_with_the_endpoint_headers(service):
    response = service.test_client().get("/compute/v1/test/right")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "private, no-store"
    # Optional and None: omitted. Null by contract: null. Timestamps: ISO 8601 with Z.
    assert response.get_json() == {"id": "t1", "made_at": "2026-04-01T12:30:00.000Z",
                                   "gone_at": None}
    noted = service.test_client().get("/compute/v1/test/noted").get_json()
    assert noted["note"] == "hello" and noted["gone_at"] == "2026-04-01T12:30:00.000Z"


@pytest.mark.parametrize(("path", "returned"), [
    ("/compute/v1/test/dict", "returned dict, not its declared response model Thing"),
    ("/compute/v1/test/other", "returned Other, not its declared response model Thing"),
    ("/compute/v1/test/raw", "must return a Response (response=None), not Thing"),
])
def test_a_view_returning_the_wrong_shape_is_a_logged_500(service, caplog, path, returned):
    with caplog.at_level(logging.ERROR):
        response = service.test_client().get(path)
    assert_envelope(response, 500)
    errors = [r for r in caplog.records if r.exc_info and r.exc_info[0] is TypeError]
    assert errors, "the wrong shape must be logged with its traceback"
    assert returned in str(errors[-1].exc_info[1])


def test_the_document_lists_the_blueprints_registered_on_the_app(service, client):
    mine = service.test_client().get("/compute/v1/openapi.json").get_json()
    assert "/compute/v1/test/right" in mine["paths"]
    assert "Thing" in mine["components"]["schemas"]
    # Declaring a blueprint registers nothing elsewhere: the fixture app has no such path.
    assert "/compute/v1/test/right" not in client.get("/compute/v1/openapi.json").json["paths"]


def test_omitted_fields_are_documented_optional_and_not_nullable(service):
    schemas = service.test_client().get("/compute/v1/openapi.json").get_json()[
        "components"]["schemas"]
    thing = schemas["Thing"]
    assert set(thing["required"]) == {"id", "made_at", "gone_at"}
    assert thing["properties"]["note"] == {"title": "Note", "type": "string"}
    assert {"type": "null"} in thing["properties"]["gone_at"]["anyOf"]
    record = schemas["ProteinDesignResult"]["properties"]
    assert "null" not in str(record["warnings"])


# --- every real endpoint -----------------------------------------------------------------

def _expiry() -> str:
    return (datetime.now(UTC) + timedelta(days=2)).isoformat()


@pytest.fixture
def answers(app, client, org):
    """Call every operation with a 200 answer; return ``{(method, path): [bodies]}``."""
    artifact_dir = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        pipelines = {}
        for kind in factories.KINDS:
            pipelines[kind], ids = factories.insert_pipeline(conn, org.workspace_id, kind, 4)
            factories.add_result_artifacts(conn, artifact_dir, ids,
                                           ligand=kind.startswith("small_molecule"))
        prediction = factories.insert_prediction(conn, org.workspace_id)
        factories.insert_prediction(conn, org.workspace_id, "adme")
        factories.insert_artifact(conn, artifact_dir, content=b"x", role="structure",
                                  filename="m.cif", content_type="chemical/x-mmcif",
                                  prediction_id=prediction)
        start = int(datetime(2026, 4, 1, tzinfo=UTC).timestamp())
        add_usage_records(conn, [
            {"organization_id": org.organization_id, "workspace_id": org.workspace_id,
             "application": "adme", "quantity": 3, "recorded_at": start + n * 3600}
            for n in range(3)
        ])
    seen: dict[tuple[str, str], list] = {}
    calls = count()

    def call(spec_path: str, url: str, method: str = "GET", **kwargs) -> dict:
        response = client.open(url, method=method, headers=org.headers, **kwargs)
        assert response.status_code == 200, (url, response.data[:300])
        seen.setdefault((method, spec_path), []).append(response.get_json())
        next(calls)
        return response.get_json()

    public = call("/share-links", "/compute/v1/share-links", "POST", json={
        "expires_at": _expiry(), "pipeline_ids": list(pipelines.values()),
        "prediction_ids": [prediction]})
    call("/share-links", "/compute/v1/share-links", "POST", json={
        "expires_at": _expiry(), "pipeline_ids": [pipelines["protein_design"]],
        "access_parameters": {"access_mode": "email", "allowed_emails": ["a@example.org"]}})
    call("/share-links/<link_id>", f"/compute/v1/share-links/{public['id']}")
    call("/share/<link_id>", f"/compute/v1/share/{public['id']}")
    for pipeline in pipelines.values():
        for limit in (3, 1000):
            call("/share/<link_id>/pipelines/<pipeline_id>/results",
                 f"/compute/v1/share/{public['id']}/pipelines/{pipeline}/results?limit={limit}")
    call("/share/<link_id>/pipelines/<pipeline_id>/results",
         f"/compute/v1/share/{public['id']}/pipelines/{pipelines['protein_design']}/results"
         "?ids=res_none")
    call("/share-links/<link_id>/archive", f"/compute/v1/share-links/{public['id']}/archive",
         "POST")
    workspace = call("/admin/workspaces", "/compute/v1/admin/workspaces", "POST",
                     json={"name": "Models"})
    call("/admin/workspaces", "/compute/v1/admin/workspaces")
    call("/admin/workspaces/<workspace_id>", f"/compute/v1/admin/workspaces/{workspace['id']}")
    call("/admin/workspaces/<workspace_id>", f"/compute/v1/admin/workspaces/{workspace['id']}",
         "POST", json={"name": "Renamed"})
    call("/admin/workspaces/<workspace_id>/archive",
         f"/compute/v1/admin/workspaces/{workspace['id']}/archive", "POST")
    key = call("/admin/api-keys", "/compute/v1/admin/api-keys", "POST",
               json={"name": "k", "expires_in_days": 3})
    call("/admin/api-keys", "/compute/v1/admin/api-keys")
    call("/admin/api-keys/<api_key_id>/revoke",
         f"/compute/v1/admin/api-keys/{key['key_details']['id']}/revoke", "POST")
    usage = "/compute/v1/admin/usage?starting_at=2026-04-01T00:00:00Z" \
            "&ending_at=2026-04-02T00:00:00Z&window_size=HOUR"
    call("/admin/usage", usage)
    call("/admin/usage", usage + "&group_by[]=application&group_by[]=workspace_id&limit=1")
    _call_run_reads(call)
    assert next(calls) > 20
    return seen


def _call_run_reads(call) -> None:
    """Call the SDK's reads of pipeline runs and predictions, each with a 200 answer."""
    for path in [r.path for r in pipelines.RESOURCES] + [r.path for r in predictions.RESOURCES]:
        page = call(path, f"/compute/v1{path}?limit=1000")
        assert page["data"], path
        for run in page["data"]:
            call(f"{path}/<id>", f"/compute/v1{path}/{run['id']}")
            if not path.startswith("/predictions"):
                call(f"{path}/<id>/results", f"/compute/v1{path}/{run['id']}/results?limit=3")


def _matching_model(spec: EndpointSpec, body: dict) -> BaseModel:
    """Return the body parsed by the declared model that dumps back to exactly it."""
    for model in spec.response_models():
        try:
            parsed = model.model_validate(body)
        except ValueError:
            continue
        if parsed.model_dump(mode="json", exclude_unset=True) == body:
            return parsed
    raise AssertionError(f"{spec.method} {spec.path}: no declared model holds {body}")


@pytest.mark.dialect  # bodies from the driver's values
def test_every_200_body_is_exactly_its_declared_model(answers):
    modelled = [spec for spec in SPECS if spec.response is not None]
    missing = [(s.method, s.path) for s in modelled if (s.method, s.path) not in answers]
    assert not missing, "exercise new endpoints here"
    for spec in modelled:
        for body in answers[(spec.method, spec.path)]:
            _matching_model(spec, body)
            assert None not in _optional_values(spec, body), (spec.path, body)


def _optional_values(spec: EndpointSpec, body: dict) -> list:
    """Values of result records' optional fields (never null) found in ``body``."""
    records = body.get("data", []) if "results" in spec.path else []
    return [record.get(name, "absent") for record in records
            for name in ("warnings", "adme", "external_id")]

