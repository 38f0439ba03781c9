"""The contract suite: every answer the SDK declares validates strictly with its model.

``boltz-api`` 0.50.0's pydantic models are the wire (``../shared/sdk-wire.md``). Each 200
body below is validated with ``TypeAdapter(Model).validate_python(body)``, the strict
path, not the SDK's lenient ``construct`` (which accepts anything), in live mode (demo
data and factory rows, through live keys) and in test mode (the synthetic data a test key
seeds on first use, through test keys):

- share links: create, retrieve, archive, read (the whole ``ShareLinkReadResponse`` and
  every entry against its own union member, e.g. ``PipelineSmExplore``: the plain union
  could match the wrong member), results through a link;
- administration: workspaces (create, list, retrieve, update, archive), API keys (create,
  list, revoke), usage;
- every pipeline type's list, retrieve and list_results, every prediction's list and
  retrieve. Result pages: items with the type's ``<family>/<type>_list_results_response``.

Two resources have no model of their own in the SDK and are validated with the nearest
one: protein redesign runs (our extension resource ``/protein/redesign``) with the share
read's ``PipelineProteinRedesignRun``, their results with protein design's; the list of
small-molecule explore runs (an extension) with the explore retrieve model.

``test_the_suite_fails_on_drift`` proves the suite bites: a real answer with one
declared required field dropped fails strict validation.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from boltz_api.types import (
    share_link_archive_response,
    share_link_create_response,
    share_link_read_response,
    share_link_retrieve_response,
)
from boltz_api.types.admin import (
    api_key_create_response,
    api_key_list_response,
    api_key_revoke_response,
    usage_list_response,
    workspace_archive_response,
    workspace_create_response,
    workspace_list_response,
    workspace_retrieve_response,
    workspace_update_response,
)
from boltz_api.types.predictions import (
    adme_list_response,
    adme_retrieve_response,
    structure_and_binding_list_response,
    structure_and_binding_retrieve_response,
)
from boltz_api.types.protein import (
    design_list_response,
    design_list_results_response,
    design_retrieve_response,
    library_screen_list_response,
    library_screen_list_results_response,
    library_screen_retrieve_response,
    sequence_redesign_list_response,
    sequence_redesign_list_results_response,
    sequence_redesign_retrieve_response,
)
from boltz_api.types.small_molecule import design_list_response as sm_design_list
from boltz_api.types.small_molecule import design_list_results_response as sm_design_results
from boltz_api.types.small_molecule import design_retrieve_response as sm_design_retrieve
from boltz_api.types.small_molecule import (
    explore_list_results_response,
    explore_retrieve_response,
)
from boltz_api.types.small_molecule import library_screen_list_response as sm_screen_list
from boltz_api.types.small_molecule import (
    library_screen_list_results_response as sm_screen_results,
)
from boltz_api.types.small_molecule import (
    library_screen_retrieve_response as sm_screen_retrieve,
)
from pydantic import ValidationError

from app.domain import PIPELINE_KINDS
from app.platform.db import get_engine
from app.store import schema
from app.store.usage import add_usage_records
from app.synthetic.catalog import build_catalog, insert_catalog
from tests.support import factories
from tests.support.admin import make_key
from tests.support.sdk_clients import (
    base_url,
    checked_share_read,
    http_client,
    sdk_client,
    strict,
)

R = share_link_read_response


# Each pipeline type: its resource path, the SDK models of its list items, retrieve and
# results items, and its member of the share read's ``Pipeline`` union.
PIPELINE_TYPES: dict[str, dict[str, Any]] = {
    "protein_design": {
        "path": "/protein/design", "list": design_list_response.DesignListResponse,
        "retrieve": design_retrieve_response.DesignRetrieveResponse,
        # Design results of the SDK are ProteinDesignResult (a union with the redesign
        # records, whose `type` the design records do not have): the member, not the union.
        "result": design_list_results_response.ProteinDesignResult,
        "member": R.PipelineProteinDesignRunResponse},
    "protein_redesign": {
        "path": "/protein/redesign", "list": R.PipelineProteinRedesignRun,
        "retrieve": R.PipelineProteinRedesignRun,
        "result": design_list_results_response.ProteinDesignResult,
        "member": R.PipelineProteinRedesignRun},
    "protein_sequence_redesign": {
        "path": "/protein/sequence-redesign",
        "list": sequence_redesign_list_response.SequenceRedesignListResponse,
        "retrieve": sequence_redesign_retrieve_response.SequenceRedesignRetrieveResponse,
        "result": sequence_redesign_list_results_response.SequenceRedesignListResultsResponse,
        "member": R.PipelineProteinSequenceRedesignRun},
    "protein_library_screen": {
        "path": "/protein/library-screen",
        "list": library_screen_list_response.LibraryScreenListResponse,
        "retrieve": library_screen_retrieve_response.LibraryScreenRetrieveResponse,
        "result": library_screen_list_results_response.LibraryScreenListResultsResponse,
        "member": R.PipelineProteinLibraryScreen},
    "small_molecule_design": {
        "path": "/small-molecule/design", "list": sm_design_list.DesignListResponse,
        "retrieve": sm_design_retrieve.DesignRetrieveResponse,
        "result": sm_design_results.DesignListResultsResponse,
        "member": R.PipelineSmDesignRun},
    "small_molecule_library_screen": {
        "path": "/small-molecule/library-screen",
        "list": sm_screen_list.LibraryScreenListResponse,
        "retrieve": sm_screen_retrieve.LibraryScreenRetrieveResponse,
        "result": sm_screen_results.LibraryScreenListResultsResponse,
        "member": R.PipelineSmScreen},
    "small_molecule_explore": {
        "path": "/small-molecule/explore",
        "list": explore_retrieve_response.ExploreRetrieveResponse,
        "retrieve": explore_retrieve_response.ExploreRetrieveResponse,
        "result": explore_list_results_response.ExploreListResultsResponse,
        "member": R.PipelineSmExplore},
}
PREDICTION_TYPES: dict[str, dict[str, Any]] = {
    "structure_and_binding": {
        "path": "/predictions/structure-and-binding",
        "list": structure_and_binding_list_response.StructureAndBindingListResponse,
        "retrieve": structure_and_binding_retrieve_response.StructureAndBindingRetrieveResponse,
        "member": R.PredictionBoltz2Prediction},
    "adme": {
        "path": "/predictions/adme", "list": adme_list_response.AdmeListResponse,
        "retrieve": adme_retrieve_response.AdmeRetrieveResponse,
        "member": R.PredictionAdmePrediction},
}
MODEL_OF_PREDICTION = {"boltz-2.1": "structure_and_binding", "adme-v1": "adme"}
API = "/compute/v1"
RESULTS = 3


def test_every_kind_has_a_contract():
    assert set(PIPELINE_TYPES) == set(PIPELINE_KINDS)


def ok(response) -> Any:
    """Return the JSON of a 200 answer (fail with its body otherwise)."""
    assert response.status_code == 200, response.data[:800]
    return response.get_json()


def check_page(body: dict, item: Any) -> list[dict]:
    """Validate an id-cursor page strictly: its envelope and each item; return the items."""
    assert set(body) == {"data", "first_id", "last_id", "has_more"}
    strict(bool, body["has_more"])
    strict(str | None, body["first_id"])
    strict(str | None, body["last_id"])
    strict(list[item], body["data"])
    return body["data"]


def seed_live(app, org) -> None:
    """Seed the demo catalog (SDK-shaped inputs, files on every result) and factory rows
    of every kind, in live mode, in the org's default workspace."""
    now = datetime.now(UTC).replace(tzinfo=None)
    data = build_catalog(org.workspace_id, app.config["ARTIFACT_DIR"], now, count=RESULTS)
    with get_engine(app).begin() as conn:
        insert_catalog(conn, data)
        for kind in PIPELINE_KINDS:
            _, ids = factories.insert_pipeline(conn, org.workspace_id, kind, RESULTS)
            # The SDK requires an archive on every result (and a structure on molecules).
            factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ids,
                                           ligand=kind.startswith("small_molecule"))
        # A run that has not produced anything yet: no latest_result_id, no results.
        factories.insert_pipeline(conn, org.workspace_id, "protein_design", 0,
                                  status="pending")


def walk_runs(client, headers: dict) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """List, retrieve and list the results of every run the key sees, validating each
    answer; return the pipeline ids and prediction ids by kind / application."""
    pipelines: dict[str, list[str]] = {}
    for kind, spec in PIPELINE_TYPES.items():
        runs = check_page(ok(client.get(f"{API}{spec['path']}?limit=1000", headers=headers)),
                          spec["list"])
        pipelines[kind] = [run["id"] for run in runs]
        for run in runs:
            assert "input" not in run
            record = ok(client.get(f"{API}{spec['path']}/{run['id']}", headers=headers))
            strict(spec["retrieve"], record)
            strict(spec["member"], record)
            page = ok(client.get(f"{API}{spec['path']}/{run['id']}/results",
                                 headers=headers))
            results = check_page(page, spec["result"])
            assert len(results) == record["progress"][count_field(record["progress"])]
            if results:
                assert record["progress"]["latest_result_id"] == results[-1]["id"]
            else:
                assert "latest_result_id" not in record["progress"]
    predictions: dict[str, list[str]] = {}
    for application, spec in PREDICTION_TYPES.items():
        runs = check_page(ok(client.get(f"{API}{spec['path']}?limit=1000", headers=headers)),
                          spec["list"])
        predictions[application] = [run["id"] for run in runs]
        for run in runs:
            record = ok(client.get(f"{API}{spec['path']}/{run['id']}", headers=headers))
            strict(spec["retrieve"], record)
            strict(spec["member"], record)
    return pipelines, predictions


def count_field(progress: dict) -> str:
    """Return the name of the done count of a progress object."""
    (name,) = [key for key in progress
               if key.startswith("num_") and not key.endswith("_failed")]
    return name


def walk_share_link(client, headers: dict, pipelines: dict[str, list[str]],
                    predictions: dict[str, list[str]]) -> None:
    """Create, retrieve, read (and read results through), then archive a link over every
    run, validating each answer."""
    pipeline_ids = [pid for ids in pipelines.values() for pid in ids]
    prediction_ids = [pid for ids in predictions.values() for pid in ids]
    expires = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    created = ok(client.post(f"{API}/share-links", headers=headers, json={
        "expires_at": expires, "pipeline_ids": pipeline_ids,
        "prediction_ids": prediction_ids}))
    strict(share_link_create_response.ShareLinkCreateResponse, created)
    email = ok(client.post(f"{API}/share-links", headers=headers, json={
        "expires_at": expires, "pipeline_ids": pipeline_ids[:1],
        "access_parameters": {"access_mode": "email", "allowed_emails": ["a@example.org"]}}))
    strict(share_link_create_response.ShareLinkCreateResponse, email)
    link_id = created["id"]
    strict(share_link_retrieve_response.ShareLinkRetrieveResponse,
           ok(client.get(f"{API}/share-links/{link_id}", headers=headers)))

    read = ok(client.get(f"{API}/share/{link_id}"))
    strict(R.ShareLinkReadResponse, read)
    assert [p["id"] for p in read["pipelines"]] == pipeline_ids
    assert [p["id"] for p in read["predictions"]] == prediction_ids
    kind_of = {pid: kind for kind, ids in pipelines.items() for pid in ids}
    for entry in read["pipelines"]:
        spec = PIPELINE_TYPES[kind_of[entry["id"]]]
        strict(spec["member"], entry)
        page = ok(client.get(f"{API}/share/{link_id}/pipelines/{entry['id']}/results"))
        check_page(page, spec["result"])
    for entry in read["predictions"]:
        strict(PREDICTION_TYPES[MODEL_OF_PREDICTION[entry["model"]]]["member"], entry)

    strict(share_link_archive_response.ShareLinkArchiveResponse,
           ok(client.post(f"{API}/share-links/{link_id}/archive", headers=headers)))


def walk_admin(app, client, headers: dict, org) -> None:
    """Workspaces, API keys and usage through an admin key, each answer validated."""
    created = ok(client.post(f"{API}/admin/workspaces", headers=headers, json={
        "name": "Contract", "data_retention": {"unit": "days", "value": 7}}))
    strict(workspace_create_response.WorkspaceCreateResponse, created)
    check_page(ok(client.get(f"{API}/admin/workspaces", headers=headers)),
               workspace_list_response.WorkspaceListResponse)
    strict(workspace_retrieve_response.WorkspaceRetrieveResponse,
           ok(client.get(f"{API}/admin/workspaces/{created['id']}", headers=headers)))
    strict(workspace_update_response.WorkspaceUpdateResponse,
           ok(client.post(f"{API}/admin/workspaces/{created['id']}", headers=headers,
                          json={"name": "Contract 2"})))
    key = ok(client.post(f"{API}/admin/api-keys", headers=headers, json={
        "name": "contract", "workspace_id": created["id"]}))
    strict(api_key_create_response.APIKeyCreateResponse, key)
    check_page(ok(client.get(f"{API}/admin/api-keys", headers=headers)),
               api_key_list_response.APIKeyListResponse)
    strict(api_key_revoke_response.APIKeyRevokeResponse,
           ok(client.post(f"{API}/admin/api-keys/{key['key_details']['id']}/revoke",
                          headers=headers)))
    strict(workspace_archive_response.WorkspaceArchiveResponse,
           ok(client.post(f"{API}/admin/workspaces/{created['id']}/archive",
                          headers=headers)))
    now = datetime.now(UTC)
    with get_engine(app).begin() as conn:
        add_usage_records(conn, [
            {"organization_id": org.organization_id, "workspace_id": org.workspace_id,
             "application": application, "quantity": 3,
             "recorded_at": int((now - timedelta(hours=2)).timestamp())}
            for application in ("protein_design", "adme")])
    start = (now - timedelta(days=2)).strftime("%Y-%m-%dT00:00:00Z")
    end = (now + timedelta(days=1)).strftime("%Y-%m-%dT00:00:00Z")
    for query in ("", "&group_by[]=workspace_id&group_by[]=application"):
        body = ok(client.get(f"{API}/admin/usage?starting_at={start}&ending_at={end}"
                             f"&window_size=DAY{query}", headers=headers))
        assert set(body) <= {"data", "next_page", "has_more"}
        strict(list[usage_list_response.UsageListResponse], body["data"])


@pytest.mark.slow
def test_live_mode_answers_validate_strictly(app, client, org):
    seed_live(app, org)
    pipelines, predictions = walk_runs(client, org.headers)
    assert all(pipelines.values()) and all(predictions.values())
    walk_share_link(client, org.headers, pipelines, predictions)
    workspace_key = {"x-api-key": make_key(app, org)}
    walk_share_link(client, workspace_key, pipelines, predictions)
    walk_admin(app, client, org.headers, org)


@pytest.mark.slow
def test_test_mode_answers_validate_strictly(app, client, org):
    # First use of a test key seeds the workspace's synthetic test-mode data.
    headers = {"x-api-key": make_key(app, org, key_type="admin", livemode=False)}
    pipelines, predictions = walk_runs(client, headers)
    assert all(pipelines[kind] for kind in PIPELINE_KINDS if kind != "small_molecule_explore")
    assert all(predictions.values())
    walk_share_link(client, headers, pipelines, predictions)
    walk_share_link(client, {"x-api-key": make_key(app, org, livemode=False)}, pipelines,
                    predictions)
    walk_admin(app, client, headers, org)


@pytest.mark.slow
def test_the_suite_fails_on_drift(app, client, org):
    seed_live(app, org)
    pipelines, predictions = walk_runs(client, org.headers)
    link = factories.make_link(app, org, pipeline_ids=pipelines["protein_design"][:1],
                               prediction_ids=predictions["adme"][:1])
    body = ok(client.get(f"{API}/share/{link.id}"))
    strict(R.ShareLinkReadResponse, body)  # the real answer passes
    # Drop one declared required field from one record: strict validation refuses it.
    for drop in ("status", "livemode", "pipeline_version"):
        drifted = {**body, "pipelines": [{k: v for k, v in body["pipelines"][0].items()
                                          if k != drop}]}
        with pytest.raises(ValidationError) as error:
            strict(R.ShareLinkReadResponse, drifted)
        assert drop in str(error.value)
    drifted = {k: v for k, v in body.items() if k != "workspace_id"}
    with pytest.raises(ValidationError):
        strict(R.ShareLinkReadResponse, drifted)
    progress = body["pipelines"][0]["progress"]
    with pytest.raises(ValidationError):
        strict(R.PipelineProteinDesignRunResponse, {
            **body["pipelines"][0],
            "progress": {k: v for k, v in progress.items() if k != "num_proteins_generated"}})
    # The lenient construct the suite does not use would have let each of them through.
    R.ShareLinkReadResponse.construct(**drifted)


@pytest.mark.dialect  # JSON and times read back
def test_stored_progress_times_and_errors_reach_the_record(app, client, org):
    started = datetime(2026, 4, 1, 8, 0)
    with get_engine(app).begin() as conn:
        screen, ids = factories.insert_pipeline(conn, org.workspace_id,
                                                "small_molecule_library_screen", 2)
        explore, _ = factories.insert_pipeline(conn, org.workspace_id,
                                               "small_molecule_explore", 0, status="running")
        conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == screen).values(
            status="failed", started_at=started, stopped_at=started + timedelta(hours=1),
            error={"code": "out_of_memory", "message": "The engine ran out of memory."},
            progress={"total_molecules_to_screen": 300, "num_molecules_failed": 4,
                      "num_molecules_screened": 999,  # a stored count never wins
                      "rejection_summary": {"filtered_count": 2, "invalid_count": 1}}))
        conn.execute(schema.pipelines.update().where(schema.pipelines.c.id == explore).values(
            progress={"phase": "building_graph", "total_molecules_to_score": 5000,
                      "library_size": 100000}))
    record = ok(client.get(f"{API}/small-molecule/library-screen/{screen}",
                           headers=org.headers))
    strict(sm_screen_retrieve.LibraryScreenRetrieveResponse, record)
    assert record["progress"] == {
        "num_molecules_failed": 4, "num_molecules_screened": 2,
        "total_molecules_to_screen": 300, "latest_result_id": ids[-1],
        "rejection_summary": {"filtered_count": 2, "invalid_count": 1}}
    assert record["error"] == {"code": "out_of_memory",
                               "message": "The engine ran out of memory."}
    assert record["started_at"] == "2026-04-01T08:00:00.000Z"
    assert record["stopped_at"] == "2026-04-01T09:00:00.000Z"
    running = ok(client.get(f"{API}/small-molecule/explore/{explore}", headers=org.headers))
    strict(explore_retrieve_response.ExploreRetrieveResponse, running)
    assert running["progress"] == {"num_molecules_failed": 0, "num_molecules_scored": 0,
                                   "phase": "building_graph",
                                   "total_molecules_to_score": 5000, "library_size": 100000}
    assert running["error"] is None and running["stopped_at"] is None


def test_answers_through_the_sdk_validate_strictly(app, org):
    # The official client's own requests (its paths, query encoding, headers), answered in
    # process; through gunicorn: tests/test_wsgi.py.
    seed_live(app, org)
    with sdk_client(app, org.admin_key) as sdk, http_client(app) as browser:
        runs = [run.id for run in sdk.small_molecule.design.list()]
        link = sdk.share_links.create(
            expires_at=(datetime.now(UTC) + timedelta(days=1)).isoformat(), pipeline_ids=runs,
            prediction_ids=[p.id for p in sdk.predictions.structure_and_binding.list()])
        # Presigned at the app's public URL: the structure downloads.
        checked_share_read(sdk, link.id, base_url(app), browser.get)


@pytest.mark.dialect  # stored JSON text as is
def test_metrics_beyond_the_declared_ones_are_served_as_stored(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline, ids = factories.insert_pipeline(conn, org.workspace_id, "protein_design", 1)
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ids)
        stored = conn.execute(sa.select(schema.results.c.metrics)).scalar_one()
        conn.execute(schema.results.update().values(
            metrics={**stored, "ipsae_min": 0.61, "shape_complementarity": 0.7}))
    page = ok(client.get(f"{API}/protein/design/{pipeline}/results", headers=org.headers))
    [record] = check_page(page, design_list_results_response.ProteinDesignResult)
    # ipsae_min is the SDK's optional metric; the other key an extension passed through.
    assert record["metrics"]["ipsae_min"] == 0.61
    assert record["metrics"]["shape_complementarity"] == 0.7
