"""The SDK's reads of pipeline runs and predictions, answered by the app in process (issue 11).

Every pipeline resource the SDK has (list with auto-paging, retrieve, list_results with
auto-paging and the ``ids`` filter; small-molecule explore has no list in the SDK, and
protein redesign runs, ``/protein/redesign``, no resource: both are read over HTTP) and
both prediction resources (list, retrieve); each key
sees only its own mode (live or test); a workspace key its workspace, an admin key its
organization; another organization's runs are the 404.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import boltz_api
import pytest

from app.domain import PIPELINE_KINDS
from app.platform.db import get_engine
from tests.support import factories
from tests.support.admin import make_key
from tests.support.factories import assert_envelope
from tests.support.sdk_clients import base_url, http_client, sdk_client

# SDK resource path -> the kinds it serves.
RESOURCES = {
    ("protein", "design"): ("protein_design",),
    ("protein", "sequence_redesign"): ("protein_sequence_redesign",),
    ("protein", "library_screen"): ("protein_library_screen",),
    ("small_molecule", "design"): ("small_molecule_design",),
    ("small_molecule", "library_screen"): ("small_molecule_library_screen",),
}
PREDICTIONS = {"structure_and_binding": "structure_and_binding", "adme": "adme"}
RESULTS = 5


@dataclass
class World:
    """Ids seeded for the tests: by mode, kind and workspace."""

    live: dict[str, str] = field(default_factory=dict)  # kind -> live pipeline id
    test: dict[str, str] = field(default_factory=dict)  # kind -> test-mode pipeline id
    results: dict[str, list[str]] = field(default_factory=dict)  # pipeline id -> result ids
    predictions: dict[tuple[str, bool], str] = field(default_factory=dict)
    second_workspace: str = ""
    second_pipeline: str = ""
    foreign_pipeline: str = ""


@pytest.fixture
def world(app, org, other_org) -> World:
    """Live and test-mode runs of every kind in the default workspace, one elsewhere."""
    seeded = World()
    seeded.second_workspace = factories.add_workspace(app, org)
    artifact_dir = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        for kind in PIPELINE_KINDS:
            for livemode, ids in ((True, seeded.live), (False, seeded.test)):
                pipeline_id, result_ids = factories.insert_pipeline(
                    conn, org.workspace_id, kind, RESULTS, livemode=livemode)
                ids[kind] = pipeline_id
                seeded.results[pipeline_id] = result_ids
            factories.add_result_artifacts(conn, artifact_dir, seeded.results[
                seeded.live[kind]][:2], ligand=kind.startswith("small_molecule"))
        for application in PREDICTIONS.values():
            for livemode in (True, False):
                seeded.predictions[application, livemode] = factories.insert_prediction(
                    conn, org.workspace_id, application, livemode=livemode)
        seeded.second_pipeline, _ = factories.insert_pipeline(
            conn, seeded.second_workspace, "protein_design", 1)
        seeded.foreign_pipeline, _ = factories.insert_pipeline(
            conn, other_org.workspace_id, "protein_design", 1)
    return seeded


def resource(sdk: boltz_api.Boltz, path: tuple[str, str]):
    """Return the SDK resource at ``path``, e.g. ``sdk.protein.design``."""
    return getattr(getattr(sdk, path[0]), path[1])


def test_admin_lists_pages_and_reads_every_pipeline_resource(app, org, world):
    with sdk_client(app, org.admin_key) as sdk:
        for path, kinds in RESOURCES.items():
            api = resource(sdk, path)
            expected = sorted(world.live[kind] for kind in kinds)
            first = api.list(limit=1)
            assert [run.id for run in first.data] == expected[:1]
            assert first.has_more is (len(expected) > 1)
            runs = list(api.list(limit=1))  # auto-paging follows after_id
            assert [run.id for run in runs] == expected
            assert all(run.livemode is True and run.status == "succeeded" for run in runs)
            assert all(run.workspace_id == org.workspace_id for run in runs)
            for run_id in expected:
                run = api.retrieve(run_id)
                assert run.id == run_id and run.livemode is True
                assert run.created_at is not None and run.pipeline == run.engine
                assert "kind" not in run.to_dict()
                results = list(api.list_results(run_id, limit=2))
                assert [r.id for r in results] == world.results[run_id]
                assert results[0].artifacts.archive.url.startswith(base_url(app))
                picked = world.results[run_id][1::2]
                filtered = api.list_results(run_id, ids=",".join([*picked, "res_none"]))
                assert [r.id for r in filtered.data] == picked
            back = api.list(before_id=expected[-1], limit=1)
            assert [run.id for run in back.data] == expected[-2:-1]


def test_results_keep_the_share_endpoint_shapes(app, org, world):
    with sdk_client(app, org.admin_key) as sdk:
        redesign = sdk.protein.sequence_redesign.list_results(
            world.live["protein_sequence_redesign"])
        assert [r.type for r in redesign.data][:2] == ["binder", "generic"]
        screen = sdk.small_molecule.library_screen.list_results(
            world.live["small_molecule_library_screen"]).data
        assert screen[0].smiles and screen[0].external_id == "ext-0"
        assert screen[0].artifacts.ligand_structure.url
        proteins = sdk.protein.library_screen.list_results(
            world.live["protein_library_screen"]).data
        assert proteins[0].entities[0].type == "protein" and proteins[0].metrics.iptm >= 0


def test_predictions_list_and_retrieve(app, org, world):
    with sdk_client(app, org.admin_key) as sdk:
        for name, application in PREDICTIONS.items():
            api = getattr(sdk.predictions, name)
            listed = list(api.list(limit=1))
            assert [p.id for p in listed] == [world.predictions[application, True]]
            one = api.retrieve(listed[0].id)
            assert one.status == "succeeded" and one.livemode is True
            assert one.workspace_id == org.workspace_id and one.model
            assert one.to_dict()["input"] == factories.prediction_record(application)[0]
            with pytest.raises(boltz_api.NotFoundError):
                api.retrieve(world.predictions[application, False])
        with pytest.raises(boltz_api.NotFoundError):  # an ADME id is no structure prediction
            sdk.predictions.structure_and_binding.retrieve(world.predictions["adme", True])


@pytest.mark.slow
def test_a_live_key_and_a_test_key_each_see_only_their_mode(app, org, world):
    keys = {True: make_key(app, org), False: make_key(app, org, livemode=False)}
    for livemode, key in keys.items():
        mine, theirs = (world.live, world.test) if livemode else (world.test, world.live)
        with sdk_client(app, key) as sdk:
            for path, kinds in RESOURCES.items():
                api = resource(sdk, path)
                runs = list(api.list(limit=1))
                assert {run.livemode for run in runs} == {livemode}
                listed = [run.id for run in runs]
                # A test workspace may also hold synthetic test-mode runs of its own.
                assert {mine[kind] for kind in kinds} <= set(listed)
                assert not {theirs[kind] for kind in kinds} & set(listed)
                assert listed == sorted(listed)
                for kind in kinds:
                    assert api.retrieve(mine[kind]).livemode is livemode
                    results = list(api.list_results(mine[kind], limit=2))
                    assert [r.id for r in results] == world.results[mine[kind]]
                    with pytest.raises(boltz_api.NotFoundError):
                        api.retrieve(theirs[kind])
                    with pytest.raises(boltz_api.NotFoundError):
                        api.list_results(theirs[kind])
            for name, application in PREDICTIONS.items():
                api = getattr(sdk.predictions, name)
                listed = [p.id for p in api.list()]
                assert world.predictions[application, livemode] in listed
                assert world.predictions[application, not livemode] not in listed


def test_workspace_and_organization_scopes(app, org, other_org, world):
    workspace_key = make_key(app, org)
    second = world.second_workspace
    with sdk_client(app, workspace_key) as sdk:
        with pytest.raises(boltz_api.NotFoundError):
            sdk.protein.design.retrieve(world.second_pipeline)
        with pytest.raises(boltz_api.PermissionDeniedError):
            sdk.protein.design.list(workspace_id=second)
        assert sdk.protein.design.list(workspace_id=org.workspace_id).data
    with sdk_client(app, org.admin_key) as sdk:
        # Lists default to the default workspace; workspace_id narrows to another one.
        assert world.second_pipeline not in [r.id for r in sdk.protein.design.list()]
        assert [r.id for r in sdk.protein.design.list(workspace_id=second)] == [
            world.second_pipeline]
        # Retrieval searches the organization, or only the workspace named.
        assert sdk.protein.design.retrieve(world.second_pipeline).workspace_id == second
        with pytest.raises(boltz_api.NotFoundError):
            sdk.protein.design.retrieve(world.second_pipeline, workspace_id=org.workspace_id)
        with pytest.raises(boltz_api.NotFoundError):
            sdk.protein.design.retrieve(world.foreign_pipeline)
        with pytest.raises(boltz_api.NotFoundError):
            sdk.protein.design.list_results(world.foreign_pipeline)
        with pytest.raises(boltz_api.BadRequestError):
            sdk.protein.design.list(workspace_id=other_org.workspace_id)
        # A run is found only under its own resource.
        with pytest.raises(boltz_api.NotFoundError):
            sdk.small_molecule.design.retrieve(world.live["protein_design"])


def test_paging_limits_and_keys(client, org, world):
    base = "/compute/v1/protein/design"
    assert_envelope(client.get(f"{base}?limit=1001", headers=org.headers), 400)
    assert_envelope(client.get(f"{base}?after_id=a&before_id=b", headers=org.headers), 400)
    assert_envelope(client.get(f"{base}/{world.live['protein_design']}/results?ids=a,,b",
                               headers=org.headers), 400)
    assert_envelope(client.get(base), 401)
    page = client.get(f"{base}?limit=1000", headers=org.headers).get_json()
    assert set(page) == {"data", "first_id", "last_id", "has_more"}
    assert "input" not in page["data"][0] and page["data"][0]["progress"] == {
        "num_proteins_generated": RESULTS, "total_proteins_to_generate": RESULTS,
        "latest_result_id": world.results[world.live["protein_design"]][-1]}


def test_explore_and_redesign_runs_through_the_sdk_and_http(app, org, world):
    with sdk_client(app, org.admin_key) as sdk:
        explore = world.live["small_molecule_explore"]
        run = sdk.small_molecule.explore.retrieve(explore)
        assert run.id == explore and run.progress.num_molecules_scored == RESULTS
        assert run.progress.phase == "scoring"
        results = list(sdk.small_molecule.explore.list_results(explore, limit=2))
        assert [r.id for r in results] == world.results[explore]
        assert "adme" not in results[0].to_dict()
        # A protein redesign run is no protein design run.
        with pytest.raises(boltz_api.NotFoundError):
            sdk.protein.design.retrieve(world.live["protein_redesign"])
    headers = {"x-api-key": org.admin_key}
    with http_client(app, headers=headers) as http:
        for path, kind in (("/small-molecule/explore", "small_molecule_explore"),
                           ("/protein/redesign", "protein_redesign")):
            listed = http.get(f"/compute/v1{path}").json()
            assert [run["id"] for run in listed["data"]] == [world.live[kind]]
            one = http.get(f"/compute/v1{path}/{world.live[kind]}").json()
            assert one["id"] == world.live[kind]
    redesign = one
    assert (redesign["pipeline"], redesign["pipeline_version"]) == (
        "boltz-protein-redesign", "v2026-03-01")
